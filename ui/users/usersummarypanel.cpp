#include "users/usersummarypanel.h"

#include "console/users/usermonth.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace lantern::ui {

namespace {
const QString Dash = QStringLiteral("–");
}

UserSummaryPanel::UserSummaryPanel(QWidget *parent)
    : QFrame(parent),
      m_title(new QLabel(this)),
      m_token(new QLabel(this)),
      m_makeups(new QLabel(this)),
      m_selectedDay(new QLabel(this)),
      m_hint(new QLabel(this)),
      m_makeupButton(new QPushButton(tr("Make-up…"), this))
{
    setObjectName(QStringLiteral("summaryPanel"));
    setStyleSheet(QStringLiteral("#summaryPanel { background: palette(base); border: 1px solid palette(mid); border-radius: 8px; }"
                                 " QFrame#tile { background: palette(window); border-radius: 6px; }"));

    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.35);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_token->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_token->setForegroundRole(QPalette::PlaceholderText);

    auto *tiles = new QGridLayout;
    tiles->setSpacing(8);
    tiles->setColumnStretch(0, 1);
    tiles->setColumnStretch(1, 1);
    m_streak = addTile(tiles, QStringLiteral("streak"), tr("Current streak"), 0, 0);
    m_longest = addTile(tiles, QStringLiteral("longest"), tr("Longest run in the month"), 0, 1);
    m_monthCount = addTile(tiles, QStringLiteral("monthCount"), tr("Days signed in the month"), 1, 0);
    m_points = addTile(tiles, QStringLiteral("points"), tr("Points balance"), 1, 1);

    m_makeups->setWordWrap(true);
    m_selectedDay->setWordWrap(true);
    m_selectedDay->setObjectName(QStringLiteral("selectedDay"));
    m_hint->setWordWrap(true);
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    m_makeupButton->setToolTip(tr("Grant a make-up check-in for the selected day"));
    connect(m_makeupButton, &QPushButton::clicked, this, &UserSummaryPanel::makeupClicked);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(14, 10, 14, 10);
    layout->setSpacing(6);
    layout->addWidget(m_title);
    layout->addWidget(m_token);
    layout->addSpacing(4);
    layout->addLayout(tiles);
    layout->addSpacing(4);
    layout->addWidget(m_makeups);
    layout->addStretch();
    layout->addWidget(m_selectedDay);
    layout->addWidget(m_makeupButton);
    layout->addWidget(m_hint);
    clearUser();
}

QLabel *UserSummaryPanel::addTile(QGridLayout *grid, const QString &name, const QString &caption, int row, int column)
{
    auto *tile = new QFrame(this);
    tile->setObjectName(QStringLiteral("tile"));
    auto *value = new QLabel(Dash, tile);
    value->setObjectName(name);
    QFont big = value->font();
    big.setPointSizeF(big.pointSizeF() * 1.7);
    big.setBold(true);
    value->setFont(big);
    auto *unit = new QLabel(tile);
    unit->setObjectName(name + QStringLiteral("Unit"));
    auto *text = new QLabel(caption, tile);
    text->setWordWrap(true);
    text->setForegroundRole(QPalette::PlaceholderText);
    auto *figure = new QHBoxLayout;
    figure->setSpacing(4);
    figure->addWidget(value, 0, Qt::AlignBaseline);
    figure->addWidget(unit, 0, Qt::AlignBaseline);
    figure->addStretch();
    auto *layout = new QVBoxLayout(tile);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(2);
    layout->addLayout(figure);
    layout->addWidget(text);
    layout->addStretch();
    grid->addWidget(tile, row, column);
    return value;
}

void UserSummaryPanel::showUser(const UserMonth &month, int makeupQuota)
{
    const QLocale locale;
    m_title->setText(tr("User %1").arg(month.uid));
    m_token->setText(tr("Token: %1").arg(month.token));
    //: The unit after a number of days, as in "12 days"; the number itself is shown bigger.
    setFigure(m_streak, locale.toString(month.streak), tr("day(s)", nullptr, month.streak));
    setFigure(m_longest, locale.toString(month.longest), tr("day(s)", nullptr, month.longest));
    setFigure(m_monthCount, locale.toString(month.monthCount), tr("day(s)", nullptr, month.monthCount));
    const int pointsForm = static_cast<int>(std::clamp<qint64>(month.pointsBalance, 0, 1000000));
    //: The unit after a points balance, as in "3,430 points".
    setFigure(m_points, locale.toString(month.pointsBalance), tr("point(s)", nullptr, pointsForm));
    m_makeups->setText(tr("Make-ups in the month: %1 of %2").arg(month.makeupDays.size()).arg(makeupQuota));
}

void UserSummaryPanel::clearUser()
{
    m_title->setText(tr("No user shown"));
    m_token->setText(tr("Search for a user id or token."));
    for (QLabel *figure : {m_streak, m_longest, m_monthCount, m_points})
        setFigure(figure, Dash);
    m_makeups->clear();
    m_selectedDay->clear();
    setMakeupAvailable(false, {});
}

void UserSummaryPanel::setFigure(QLabel *value, const QString &text, const QString &unit)
{
    value->setText(text);
    if (auto *unitLabel = value->parentWidget()->findChild<QLabel *>(value->objectName() + QStringLiteral("Unit")))
        unitLabel->setText(unit);
}

void UserSummaryPanel::setSelectedDay(const QString &text)
{
    m_selectedDay->setText(text);
}

void UserSummaryPanel::setMakeupAvailable(bool available, const QString &hint)
{
    m_makeupButton->setEnabled(available);
    m_hint->setText(hint);
    m_hint->setVisible(!hint.isEmpty());
}

} // namespace lantern::ui
