#pragma once

#include <QFrame>

class QLabel;

namespace lantern {
struct AuditEntry;
}

namespace lantern::ui {

/** The selected audit row in full: when (with the time zone), who, the action, its target and
    every field of its detail on a line of its own. */
class AuditDetailPanel final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditDetailPanel)

public:
    explicit AuditDetailPanel(QWidget *parent = nullptr);

    /** `time`: the entry's time as the table shows it; `zone`: the zone's name. */
    void showEntry(const AuditEntry &entry, const QString &time, const QString &zone);
    void showNothing();
    QString text() const;

private:
    QLabel *m_text;
};

} // namespace lantern::ui
