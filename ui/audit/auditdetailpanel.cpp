#include "audit/auditdetailpanel.h"

#include "console/audit/auditentry.h"
#include "console/audit/auditlogmodel.h"

#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

namespace lantern::ui {

AuditDetailPanel::AuditDetailPanel(QWidget *parent) : QFrame(parent), m_text(new QLabel(this))
{
    setObjectName(QStringLiteral("auditDetail"));
    setFrameShape(QFrame::StyledPanel);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_text);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->addWidget(scroll);
    showNothing();
}

void AuditDetailPanel::showNothing()
{
    m_text->setText(QStringLiteral("<span style='color: palette(placeholder-text)'>%1</span>")
                            .arg(tr("Select a row to read what was done, by whom and why.").toHtmlEscaped()));
}

void AuditDetailPanel::showEntry(const AuditEntry &entry, const QString &time, const QString &zone)
{
    const auto row = [](const QString &label, const QString &value) {
        return QStringLiteral("<tr><td style='padding-right:14px; color: palette(placeholder-text)'>%1</td><td>%2</td></tr>")
                .arg(label.toHtmlEscaped(), value.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    };
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    html += row(tr("When"), tr("%1 (%2)").arg(time, zone));
    html += row(tr("Who"), entry.actor);
    const QString words = AuditLogModel::actionText(entry.action);
    //: An audit entry's action: in words, then its stored name, e.g. "Make-up granted (checkin.makeup)".
    html += row(tr("Action"), words == entry.action ? entry.action : tr("%1 (%2)").arg(words, entry.action));
    html += row(tr("Target"), entry.target);
    const auto fields = AuditLogModel::detailFields(entry.detail);
    for (const auto &[key, value] : fields)
        html += row(key.isEmpty() ? tr("Details") : key, value);
    if (fields.isEmpty())
        html += row(tr("Details"), tr("none recorded"));
    html += row(tr("Entry"), QStringLiteral("#%1").arg(entry.id));
    html += QStringLiteral("</table>");
    m_text->setText(html);
}

QString AuditDetailPanel::text() const
{
    return m_text->text();
}

} // namespace lantern::ui
