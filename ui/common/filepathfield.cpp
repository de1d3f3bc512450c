#include "common/filepathfield.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>

namespace lantern::ui {

FilePathField::FilePathField(const QString &dialogTitle, const QString &filter, QWidget *parent)
    : QWidget(parent), m_title(dialogTitle), m_filter(filter), m_path(new QLineEdit(this)), m_choose(new QToolButton(this))
{
    m_path->setClearButtonEnabled(true);
    m_path->setPlaceholderText(tr("none"));
    m_choose->setText(tr("Choose…"));
    m_choose->setToolTip(dialogTitle);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_path, 1);
    layout->addWidget(m_choose);
    connect(m_choose, &QToolButton::clicked, this, &FilePathField::choose);
    connect(m_path, &QLineEdit::textEdited, this, &FilePathField::edited);
}

QString FilePathField::text() const
{
    return m_path->text().trimmed();
}

void FilePathField::setText(const QString &path)
{
    m_path->setText(path);
}

void FilePathField::choose()
{
    const QString start = text().isEmpty() ? QDir::homePath() : QFileInfo(text()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, m_title, start, m_filter);
    if (path.isEmpty())
        return;
    m_path->setText(path);
    Q_EMIT edited(path);
}

} // namespace lantern::ui
