#pragma once

#include "consoleview.h"

namespace lantern::ui {

/** The Recovery view (being built). */
class RecoveryView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecoveryView)

public:
    explicit RecoveryView(QWidget *parent = nullptr);
    ~RecoveryView() override;

    QString viewName() const override { return QStringLiteral("recovery"); }
    QString title() const override { return tr("Recovery"); }
    void attachBackend(const Config &config) override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
};

} // namespace lantern::ui
