#include "queues/deadletteredit.h"

#include "common/consoletheme.h"
#include "shell/operatoridentity.h"
#include "operations/deadletters.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

DeadLetterEditDialog::DeadLetterEditDialog(const QString &list, const QByteArray &entry, const QString &operatorName, QWidget *parent)
    : QDialog(parent), m_list(list), m_entry(entry), m_editor(new QPlainTextEdit(this)), m_problem(new QLabel(this))
{
    setWindowTitle(tr("Edit and retry"));
    auto *intro = new QLabel(tr("Correct the entry, then put it back on the queue of %1 in place of the one stored. "
                                "The audit log keeps both versions.")
                                     .arg(list),
                             this);
    intro->setWordWrap(true);
    m_editor->setObjectName(QStringLiteral("deadLetterEditor"));
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlainText(QString::fromUtf8(entry));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::errorText()));
    auto *form = new QFormLayout;
    OperatorIdentity::addRowTo(form, operatorName, this);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_retry = buttons->addButton(tr("Put it back on the queue"), QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &DeadLetterEditDialog::validate);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_editor, 1);
    layout->addWidget(m_problem);
    layout->addLayout(form);
    layout->addWidget(buttons);
    resize(fontMetrics().averageCharWidth() * 90, fontMetrics().height() * 22);
    validate();
}

QByteArray DeadLetterEditDialog::edited() const
{
    return m_editor->toPlainText().toUtf8();
}

void DeadLetterEditDialog::validate()
{
    QString problem;
    if (edited() == m_entry)
        problem = tr("Unchanged: correct the entry first (Retry puts it back as it is).");
    else if (!DeadLetters::isReadable(m_list, edited()))
        problem = tr("A worker of %1 could not read this: it is not a task of that queue.").arg(m_list);
    m_problem->setText(problem);
    m_retry->setEnabled(problem.isEmpty());
}

} // namespace lantern::ui
