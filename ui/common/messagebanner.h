#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace lantern::ui {

/** An inline message above the content (as KDE's KMessageWidget): plain words, an optional
    technical detail behind a "Details" toggle, and a close button. It never moves the page: its
    one-line strip is reserved even while hidden, a text too long for it is elided (whole in the
    tooltip and under Details), and the details open over the content below, not inside the
    layout. A message stays until it is dismissed or replaced; the error of a read that failed
    is replaced by the fresh data of the next read that works (readSucceeded()). */
class MessageBanner final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MessageBanner)

public:
    enum class Kind { Information, Positive, Error };

    explicit MessageBanner(QWidget *parent = nullptr);
    ~MessageBanner() override;

    void showMessage(Kind kind, const QString &text, const QString &detail = {});
    /** An error of a read (a load or refresh), which the next successful read replaces. */
    void showReadFailure(const QString &text, const QString &detail = {});
    /** A word about the data just read (e.g. "no entries match"), which the next read replaces. */
    void showDataNote(Kind kind, const QString &text);
    /** A read worked: a read failure or data note on show goes (the data replaces it); any
        other message (an action's outcome) stays until dismissed or replaced. */
    void readSucceeded();
    void clear();
    Kind kind() const { return m_kind; }
    /** The whole text (empty while hidden), however it is elided on screen. */
    QString text() const;
    /** Whether the details are open (over the content below). */
    bool detailsShown() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void showDetails(bool show);
    void updateElided();

    Kind m_kind = Kind::Information;
    bool m_aboutData = false;  // a read failure or data note: the next read replaces it
    QString m_fullText;
    QString m_detailText;
    QLabel *m_text;
    QToolButton *m_detailsButton;
    QLabel *m_details = nullptr;  // over the content, made on first use
};

} // namespace lantern::ui
