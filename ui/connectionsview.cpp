#include "connectionsview.h"

#include <QLabel>
#include <QVBoxLayout>

namespace lantern::ui {

ConnectionsView::ConnectionsView(QWidget *parent) : ConsoleView(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(title(), this));
}

ConnectionsView::~ConnectionsView() = default;

void ConnectionsView::attachBackend(const Config &)
{
}

void ConnectionsView::prepareScreenshot(const ScreenshotRequest &)
{
    Q_EMIT screenshotReady();
}

} // namespace lantern::ui
