#pragma once

#include <QFrame>

class QGridLayout;
class QLabel;
class QPushButton;

namespace lantern {
struct UserMonth;
}

namespace lantern::ui {

/** The side panel of the Users view: who is shown, the month's figures (current streak,
    longest run in the month, days signed, points balance, make-ups used) and the make-up action. */
class UserSummaryPanel final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UserSummaryPanel)

public:
    explicit UserSummaryPanel(QWidget *parent = nullptr);

    /** Shows `month`; `makeupQuota` is the rule's monthly quota. */
    void showUser(const UserMonth &month, int makeupQuota);
    void clearUser();
    /** Describes the selected day (empty: none selected). */
    void setSelectedDay(const QString &text);
    /** Enables the make-up button, or disables it and says why in `hint`. */
    void setMakeupAvailable(bool available, const QString &hint);

    QPushButton *makeupButton() const { return m_makeupButton; }

Q_SIGNALS:
    void makeupClicked();

private:
    /** A figure: a big value, a unit after it and a caption below. The value label is named
        `name` (tests find it by that), its unit label `name` + "Unit". */
    QLabel *addTile(QGridLayout *grid, const QString &name, const QString &caption, int row, int column);
    void setFigure(QLabel *value, const QString &text, const QString &unit = {});

    QLabel *m_title;
    QLabel *m_token;
    QLabel *m_streak;
    QLabel *m_longest;
    QLabel *m_monthCount;
    QLabel *m_points;
    QLabel *m_makeups;
    QLabel *m_selectedDay;
    QLabel *m_hint;
    QPushButton *m_makeupButton;
};

} // namespace lantern::ui
