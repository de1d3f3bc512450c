#include "recoveryview.h"

#include <QLabel>
#include <QVBoxLayout>

namespace lantern::ui {

RecoveryView::RecoveryView(QWidget *parent) : ConsoleView(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(title(), this));
}

RecoveryView::~RecoveryView() = default;

void RecoveryView::attachBackend(const Config &)
{
}

void RecoveryView::prepareScreenshot(const ScreenshotRequest &)
{
    Q_EMIT screenshotReady();
}

} // namespace lantern::ui
