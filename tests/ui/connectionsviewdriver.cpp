#include "connectionsviewdriver.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

namespace lantern::test {

std::unique_ptr<ui::ConnectionsView> makeConnectionsView(const QString &profileDirectory, const Config &session)
{
    auto view = std::make_unique<ui::ConnectionsView>(nullptr, profileDirectory, QStringLiteral("lantern-test"));
    view->resize(1000, 700);
    view->show();
    view->attachBackend(session);
    return view;
}

ConnectionCheck runConnectionTest(ui::ConnectionsView &view, int timeoutMs)
{
    QSignalSpy tested(&view, &ui::ConnectionsView::tested);
    QTest::mouseClick(view.testButton(), Qt::LeftButton);
    if (!tested.wait(timeoutMs))
        return {};
    return tested.first().first().value<ConnectionCheck>();
}

} // namespace lantern::test
