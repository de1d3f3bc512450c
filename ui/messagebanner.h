#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace lantern::ui {

/** An inline message above the content (as KDE's KMessageWidget): plain words, an optional
    technical detail behind a "Details" toggle, and a close button. Hidden when empty. */
class MessageBanner final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MessageBanner)

public:
    enum class Kind { Information, Positive, Error };

    explicit MessageBanner(QWidget *parent = nullptr);

    void showMessage(Kind kind, const QString &text, const QString &detail = {});
    void clear();
    Kind kind() const { return m_kind; }
    QString text() const;

private:
    Kind m_kind = Kind::Information;
    QLabel *m_text;
    QLabel *m_detail;
    QToolButton *m_detailsButton;
};

} // namespace lantern::ui
