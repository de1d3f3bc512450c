#pragma once

#include "consoleview.h"

namespace lantern::ui {

/** The Campaigns view (being built). */
class CampaignsView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignsView)

public:
    explicit CampaignsView(QWidget *parent = nullptr);
    ~CampaignsView() override;

    QString viewName() const override { return QStringLiteral("campaigns"); }
    QString title() const override { return tr("Campaigns"); }
    void attachBackend(const Config &config) override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
};

} // namespace lantern::ui
