#include "common/tableactions.h"

#include "console/common/tabletext.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QItemSelectionModel>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QSaveFile>
#include <QThreadPool>

#include <algorithm>

namespace lantern::ui {

TableActions::TableActions(QAbstractItemView *view, const QString &name) : QObject(view), m_view(view), m_name(name)
{
    auto *copy = new QAction(tr("&Copy rows"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);  // the view's own Ctrl+C copied one cell
    connect(copy, &QAction::triggered, this, &TableActions::copySelection);
    auto *exportCsv = new QAction(tr("&Export as CSV…"), view);
    connect(exportCsv, &QAction::triggered, this, &TableActions::exportAsked);
    view->addAction(copy);
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QWidget::customContextMenuRequested, this, [this, copy, exportCsv](const QPoint &at) {
        copy->setEnabled(m_view->selectionModel() && m_view->selectionModel()->hasSelection());
        QMenu menu(m_view);
        menu.addAction(copy);
        menu.addAction(exportCsv);
        menu.exec(m_view->viewport()->mapToGlobal(at));
    });
    connect(this, &TableActions::exported, this, [this](const QString &path, const QString &error) {
        if (m_quiet)
            return;
        // Said either way: a file nobody confirmed may be searched for in vain.
        auto *box = error.isEmpty()
                            ? new QMessageBox(QMessageBox::Information, tr("Export as CSV"),
                                              tr("%n row(s) written to %1.", nullptr, m_exportedRows).arg(QDir::toNativeSeparators(path)),
                                              QMessageBox::Ok, m_view)
                            : new QMessageBox(QMessageBox::Warning, tr("Export as CSV"),
                                              tr("The table could not be written to %1: %2").arg(path, error), QMessageBox::Ok, m_view);
        box->setObjectName(QStringLiteral("exportResult"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();  // never a nested event loop
    });
}

TableActions *TableActions::install(QAbstractItemView *view, const QString &name)
{
    return new TableActions(view, name);
}

QString TableActions::selectionText() const
{
    const QAbstractItemModel *model = m_view->model();
    if (!model || !m_view->selectionModel())
        return {};
    QList<QModelIndex> rows;
    for (const QModelIndex &index : m_view->selectionModel()->selectedIndexes()) {
        const QModelIndex first = index.siblingAtColumn(0);
        if (!rows.contains(first))
            rows << first;
    }
    // In the order the view shows them.
    std::sort(rows.begin(), rows.end(), [this](const QModelIndex &a, const QModelIndex &b) {
        return m_view->visualRect(a).top() < m_view->visualRect(b).top();
    });
    return TableText::rows(*model, rows, TableText::Format::Tsv);
}

void TableActions::copySelection() const
{
    const QString text = selectionText();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

void TableActions::exportAsked()
{
    const QString path = QFileDialog::getSaveFileName(m_view, tr("Export as CSV"), QDir::home().filePath(m_name + QStringLiteral(".csv")),
                                                      tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportTo(path);
}

void TableActions::exportTo(const QString &path)
{
    if (!m_view->model())
        return;
    // The text is taken here, on the GUI thread that owns the model; only the file is written
    // elsewhere.
    const QByteArray bytes = TableText::csvFile(*m_view->model());
    m_exportedRows = TableText::rowCount(*m_view->model());
    QPointer<TableActions> self(this);
    QThreadPool::globalInstance()->start([self, path, bytes] {
        QSaveFile file(path);
        QString error;
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
            error = file.errorString();
        QMetaObject::invokeMethod(qApp, [self, path, error] {
            if (self)
                Q_EMIT self->exported(path, error);
        }, Qt::QueuedConnection);
    });
}

} // namespace lantern::ui
