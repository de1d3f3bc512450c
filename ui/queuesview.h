#pragma once

#include "consoleview.h"

namespace lantern::ui {

/** The Queues view (being built). */
class QueuesView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueuesView)

public:
    explicit QueuesView(QWidget *parent = nullptr);
    ~QueuesView() override;

    QString viewName() const override { return QStringLiteral("queues"); }
    QString title() const override { return tr("Queues"); }
    void attachBackend(const Config &config) override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
};

} // namespace lantern::ui
