#include "connections/connectionprofilelist.h"

#include "console/connections/connectionprofilemodel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

ConnectionProfileList::ConnectionProfileList(ConnectionProfileModel *model, QWidget *parent)
    : QWidget(parent),
      m_list(new QListView(this)),
      m_empty(new QLabel(tr("No saved profiles yet: fill in the form and press Save."), this)),
      m_newButton(new QPushButton(tr("New"), this)),
      m_deleteButton(new QPushButton(tr("Delete…"), this))
{
    m_list->setModel(model);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setSpacing(3);
    m_list->setWordWrap(true);
    auto *title = new QLabel(tr("Saved profiles"), this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    m_empty->setWordWrap(true);
    m_empty->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    connect(model, &QAbstractItemModel::modelReset, this, [this, model] { m_empty->setVisible(model->rowCount() == 0); });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_newButton);
    buttons->addWidget(m_deleteButton);
    buttons->addStretch();
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(title);
    column->addWidget(m_empty);
    column->addWidget(m_list, 1);
    column->addLayout(buttons);
    setFixedWidth(fontMetrics().averageCharWidth() * 34);
}

} // namespace lantern::ui
