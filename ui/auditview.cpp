#include "auditview.h"

#include <QLabel>
#include <QVBoxLayout>

namespace lantern::ui {

AuditView::AuditView(QWidget *parent) : ConsoleView(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(title(), this));
}

AuditView::~AuditView() = default;

void AuditView::attachBackend(const Config &)
{
}

void AuditView::prepareScreenshot(const ScreenshotRequest &)
{
    Q_EMIT screenshotReady();
}

} // namespace lantern::ui
