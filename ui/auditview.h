#pragma once

#include "consoleview.h"

namespace lantern::ui {

/** The Audit log view (being built). */
class AuditView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditView)

public:
    explicit AuditView(QWidget *parent = nullptr);
    ~AuditView() override;

    QString viewName() const override { return QStringLiteral("audit"); }
    QString title() const override { return tr("Audit log"); }
    void attachBackend(const Config &config) override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
};

} // namespace lantern::ui
