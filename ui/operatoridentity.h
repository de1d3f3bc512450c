#pragma once

#include <QObject>
#include <QString>

class QFormLayout;
class QWidget;

namespace lantern::ui {

/** Who is at the console: the one operator name of a session, which every audited action and
    every dialog uses. It is set explicitly (OperatorDialog, from the window's status bar or
    File menu, or asked for before the first change): never taken silently from $USER, and a
    dialog never edits it. The last name set is remembered only as the next session's
    suggestion. */
class OperatorIdentity final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OperatorIdentity)

public:
    static constexpr int MaxLength = 64;  // audit_log.actor

    explicit OperatorIdentity(QObject *parent = nullptr);
    ~OperatorIdentity() override;

    QString name() const { return m_name; }
    bool isSet() const { return !m_name.isEmpty(); }
    /** Sets the session's operator (trimmed); false, and nothing changes, for an empty or too
        long name. */
    bool setName(const QString &name);
    /** What the dialog proposes: the name last set on this machine, else $USER (maybe empty). */
    static QString suggestion();
    /** Why a name is rejected, in plain words; empty when it is fine. */
    static QString problemWith(const QString &name);

    /** The "Operator:" row of a dialog that changes something: the session's name, shown (an
        object called "operator"), never edited there. */
    static void addRowTo(QFormLayout *form, const QString &name, QWidget *dialog);

    /** True when a name is set, after asking for one (OperatorDialog, modal) when none is yet. */
    bool ensure(QWidget *parent);
    /** Asks for a (new) name; true when one was set. */
    bool ask(QWidget *parent);

Q_SIGNALS:
    void changed(const QString &name);

private:
    QString m_name;
};

} // namespace lantern::ui
