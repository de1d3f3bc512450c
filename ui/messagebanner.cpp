#include "messagebanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace lantern::ui {

MessageBanner::MessageBanner(QWidget *parent)
    : QFrame(parent), m_text(new QLabel(this)), m_detail(new QLabel(this)), m_detailsButton(new QToolButton(this))
{
    setObjectName(QStringLiteral("messageBanner"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setVisible(false);
    QFont mono = m_detail->font();
    mono.setStyleHint(QFont::Monospace);
    mono.setFamily(QStringLiteral("monospace"));
    mono.setPointSizeF(mono.pointSizeF() * 0.9);
    m_detail->setFont(mono);

    m_detailsButton->setText(tr("Details"));
    m_detailsButton->setCheckable(true);
    m_detailsButton->setAutoRaise(true);
    connect(m_detailsButton, &QToolButton::toggled, m_detail, &QLabel::setVisible);

    auto *close = new QToolButton(this);
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip(tr("Close this message"));
    connect(close, &QToolButton::clicked, this, &MessageBanner::clear);

    auto *row = new QHBoxLayout;
    row->addWidget(m_text, 1);
    row->addWidget(m_detailsButton, 0, Qt::AlignTop);
    row->addWidget(close, 0, Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 6, 6, 6);
    layout->addLayout(row);
    layout->addWidget(m_detail);
    setVisible(false);
}

QString MessageBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

void MessageBanner::showMessage(Kind kind, const QString &text, const QString &detail)
{
    m_kind = kind;
    m_text->setText(text);
    m_detail->setText(detail);
    m_detailsButton->setVisible(!detail.isEmpty());
    m_detailsButton->setChecked(false);
    const char *background = "#e8f0fe";
    const char *border = "#aecbfa";
    const char *foreground = "#174ea6";
    if (kind == Kind::Positive) {
        background = "#e6f4ea";
        border = "#a8dab5";
        foreground = "#0d652d";
    } else if (kind == Kind::Error) {
        background = "#fce8e6";
        border = "#f6aea9";
        foreground = "#a50e0e";
    }
    setStyleSheet(QStringLiteral("#messageBanner { background: %1; border: 1px solid %2; border-radius: 6px; }"
                                 " #messageBanner QLabel { color: %3; }")
                          .arg(QLatin1String(background), QLatin1String(border), QLatin1String(foreground)));
    setVisible(true);
}

void MessageBanner::clear()
{
    m_text->clear();
    m_detail->clear();
    setVisible(false);
}

} // namespace lantern::ui
