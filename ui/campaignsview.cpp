#include "campaignsview.h"

#include <QLabel>
#include <QVBoxLayout>

namespace lantern::ui {

CampaignsView::CampaignsView(QWidget *parent) : ConsoleView(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(title(), this));
}

CampaignsView::~CampaignsView() = default;

void CampaignsView::attachBackend(const Config &)
{
}

void CampaignsView::prepareScreenshot(const ScreenshotRequest &)
{
    Q_EMIT screenshotReady();
}

} // namespace lantern::ui
