#pragma once

#include <QWidget>

class QLabel;
class QListView;
class QPushButton;

namespace lantern {
class ConnectionProfileModel;
}

namespace lantern::ui {

/** The Connections view's left column: the saved profiles (title, a hint while there are none,
    the list) with New and Delete… under it. What the buttons do is the view's. */
class ConnectionProfileList final : public QWidget {
    Q_OBJECT

public:
    ConnectionProfileList(ConnectionProfileModel *model, QWidget *parent);

    QListView *view() const { return m_list; }
    QPushButton *newButton() const { return m_newButton; }
    QPushButton *deleteButton() const { return m_deleteButton; }

private:
    QListView *m_list;
    QLabel *m_empty;
    QPushButton *m_newButton;
    QPushButton *m_deleteButton;
};

} // namespace lantern::ui
