#include "common/messagebanner.h"

#include "common/consoletheme.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

#include <algorithm>

namespace lantern::ui {

namespace {

ConsoleTheme::ToneColours coloursOf(MessageBanner::Kind kind)
{
    switch (kind) {
    case MessageBanner::Kind::Positive:
        return ConsoleTheme::tone(ConsoleTheme::Tone::Good);
    case MessageBanner::Kind::Error:
        return ConsoleTheme::tone(ConsoleTheme::Tone::Error);
    case MessageBanner::Kind::Information:
        break;
    }
    return ConsoleTheme::tone(ConsoleTheme::Tone::Information);
}

} // namespace

MessageBanner::MessageBanner(QWidget *parent) : QFrame(parent), m_text(new QLabel(this)), m_detailsButton(new QToolButton(this))
{
    setObjectName(QStringLiteral("messageBanner"));
    // One line, elided: the label never asks the layout for the text's width.
    m_text->setWordWrap(false);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_text->installEventFilter(this);

    m_detailsButton->setText(tr("Details"));
    m_detailsButton->setCheckable(true);
    m_detailsButton->setAutoRaise(true);
    connect(m_detailsButton, &QToolButton::toggled, this, &MessageBanner::showDetails);

    auto *close = new QToolButton(this);
    close->setAutoRaise(true);
    close->setIcon(ConsoleTheme::standardIcon(this, QStyle::SP_TitleBarCloseButton));
    close->setToolTip(tr("Close this message"));
    connect(close, &QToolButton::clicked, this, &MessageBanner::clear);

    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(12, 3, 6, 3);
    row->addWidget(m_text, 1);
    row->addWidget(m_detailsButton);
    row->addWidget(close);
    // The strip's height is the same with or without a message, so the page never moves.
    setFixedHeight(std::max({m_detailsButton->sizeHint().height(), close->sizeHint().height(), fontMetrics().height()}) + 8);
    QSizePolicy policy = sizePolicy();
    policy.setRetainSizeWhenHidden(true);
    setSizePolicy(policy);
    setVisible(false);
}

MessageBanner::~MessageBanner() = default;

QString MessageBanner::text() const
{
    return isHidden() ? QString() : m_fullText;
}

bool MessageBanner::detailsShown() const
{
    return m_details && m_details->isVisible();
}

void MessageBanner::showMessage(Kind kind, const QString &text, const QString &detail)
{
    m_kind = kind;
    m_aboutData = false;
    m_fullText = text;
    m_detailText = detail;
    m_text->setToolTip(text);
    const ConsoleTheme::ToneColours colours = coloursOf(kind);
    setStyleSheet(QStringLiteral("#messageBanner { background: %1; border: 1px solid %2; border-radius: 6px; }"
                                 " #messageBanner QLabel { color: %3; }")
                          .arg(colours.background, colours.border, colours.foreground));
    m_detailsButton->setChecked(false);
    setVisible(true);
    updateElided();
}

void MessageBanner::showReadFailure(const QString &text, const QString &detail)
{
    showMessage(Kind::Error, text, detail);
    m_aboutData = true;
}

void MessageBanner::showDataNote(Kind kind, const QString &text)
{
    showMessage(kind, text);
    m_aboutData = true;
}

void MessageBanner::readSucceeded()
{
    // The fresh data on screen replaces the error of the read that failed before it.
    if (m_aboutData)
        clear();
}

void MessageBanner::clear()
{
    m_aboutData = false;
    m_fullText.clear();
    m_detailText.clear();
    m_text->clear();
    m_text->setToolTip({});
    m_detailsButton->setChecked(false);
    setVisible(false);
}

bool MessageBanner::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_text && event->type() == QEvent::Resize)
        updateElided();
    return QFrame::eventFilter(watched, event);
}

void MessageBanner::hideEvent(QHideEvent *event)
{
    showDetails(false);
    QFrame::hideEvent(event);
}

void MessageBanner::updateElided()
{
    const QString shown = m_text->fontMetrics().elidedText(m_fullText, Qt::ElideRight, std::max(0, m_text->width()));
    m_text->setText(shown);
    // Details: the technical cause, and the whole text when the strip cuts it.
    m_detailsButton->setVisible(!m_detailText.isEmpty() || (shown != m_fullText && !m_fullText.isEmpty()));
}

void MessageBanner::showDetails(bool show)
{
    if (!show) {
        if (m_details)
            m_details->hide();
        if (m_detailsButton->isChecked())
            m_detailsButton->setChecked(false);
        return;
    }
    QWidget *over = parentWidget();
    if (!over)
        return;
    if (!m_details) {
        // A child of the page, not of the layout: it opens over the content below the strip.
        m_details = new QLabel(over);
        m_details->setObjectName(QStringLiteral("messageBannerDetails"));
        m_details->setWordWrap(true);
        m_details->setTextFormat(Qt::PlainText);
        m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_details->setMargin(10);
        m_details->setAutoFillBackground(true);
        m_details->setFrameShape(QFrame::StyledPanel);
    }
    QString text;
    if (m_text->text() != m_fullText)
        text = m_fullText;
    if (!m_detailText.isEmpty())
        text += (text.isEmpty() ? QString() : QStringLiteral("\n\n")) + m_detailText;
    m_details->setText(text);
    const QRect strip = geometry();
    const int height = std::min(m_details->heightForWidth(strip.width()), std::max(over->height() - strip.bottom() - 8, 40));
    m_details->setGeometry(strip.left(), strip.bottom() + 2, strip.width(), height);
    m_details->raise();
    m_details->show();
}

} // namespace lantern::ui
