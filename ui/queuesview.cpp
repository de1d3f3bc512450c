#include "queuesview.h"

#include <QLabel>
#include <QVBoxLayout>

namespace lantern::ui {

QueuesView::QueuesView(QWidget *parent) : ConsoleView(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(title(), this));
}

QueuesView::~QueuesView() = default;

void QueuesView::attachBackend(const Config &)
{
}

void QueuesView::prepareScreenshot(const ScreenshotRequest &)
{
    Q_EMIT screenshotReady();
}

} // namespace lantern::ui
