#pragma once

#include <QWidget>

class QLineEdit;
class QToolButton;

namespace lantern::ui {

/** A file name typed or picked: a line edit and a "Choose…" button that opens a file dialog
    starting at the file typed (or the home folder). */
class FilePathField final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FilePathField)

public:
    /** `dialogTitle`: the file dialog's title; `filter`: its name filter ("PEM files (*.pem)"). */
    FilePathField(const QString &dialogTitle, const QString &filter, QWidget *parent = nullptr);

    QString text() const;
    void setText(const QString &path);
    QLineEdit *lineEdit() const { return m_path; }

Q_SIGNALS:
    /** Typed or picked. */
    void edited(const QString &path);

private:
    void choose();

    QString m_title;
    QString m_filter;
    QLineEdit *m_path;
    QToolButton *m_choose;
};

} // namespace lantern::ui
