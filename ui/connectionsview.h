#pragma once

#include "consoleview.h"

namespace lantern::ui {

/** The Connections view (being built). */
class ConnectionsView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionsView)

public:
    explicit ConnectionsView(QWidget *parent = nullptr);
    ~ConnectionsView() override;

    QString viewName() const override { return QStringLiteral("connections"); }
    QString title() const override { return tr("Connections"); }
    void attachBackend(const Config &config) override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
};

} // namespace lantern::ui
