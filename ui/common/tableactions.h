#pragma once

#include <QObject>
#include <QString>

class QAbstractItemView;

namespace lantern::ui {

/** Copy and CSV export for a table or tree of the console: Ctrl+C and the context menu copy the
    selected rows (tab-separated, as spreadsheets paste them); "Export as CSV…" writes every row
    the view shows (its page) with the header, on a pool thread, never the GUI thread. */
class TableActions final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TableActions)

public:
    /** Adds the actions to `view` (owned by it); `name` proposes the file name (NAME.csv). */
    static TableActions *install(QAbstractItemView *view, const QString &name);

    /** The selected rows, as copySelection() puts them on the clipboard. */
    QString selectionText() const;
    void copySelection() const;
    /** Asks for a file, then exportTo(). */
    void exportAsked();
    /** Writes every row as CSV to `path` off the GUI thread; emits exported() when done, and
        says in a message box how many rows went where (or why none did). */
    void exportTo(const QString &path);
    /** No message box after an export (tests that only read the file). */
    void setQuiet(bool quiet) { m_quiet = quiet; }

Q_SIGNALS:
    /** `error` empty: `path` holds the table. */
    void exported(const QString &path, const QString &error);

private:
    TableActions(QAbstractItemView *view, const QString &name);

    QAbstractItemView *m_view;
    QString m_name;
    int m_exportedRows = 0;
    bool m_quiet = false;
};

} // namespace lantern::ui
