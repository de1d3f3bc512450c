#pragma once

#include "access/accountidentity.h"

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
    /** Signed in with an operator account (its role one of Lantern's): the account is the name,
        fixed for the session, and nobody is asked for one (issue 25). Without a role: unchanged. */
    void setAccount(const access::AccountIdentity &account);
    /** Back to a typed name (a profile switch). */
    void clearAccount();
    bool isAccount() const { return m_account.has_value(); }
    /** "alice (support)"; empty without an account. */
    QString accountText() const { return m_account ? m_account->text() : QString(); }
    /** Empty when the session may do `action`; else "the account alice (support) may not ...". */
    QString refusal(access::Action action) const;
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
    std::optional<access::AccountIdentity> m_account;
};

} // namespace lantern::ui
