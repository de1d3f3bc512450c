#pragma once

#include <QCoreApplication>
#include <QString>

class QWidget;

namespace lantern {
struct Config;
struct ConnectionCheck;
}

namespace lantern::ui {

/** The Connections view's questions to the operator, as modal message boxes whose safe answer
    is the default (Return and Escape keep things as they are). */
class ConnectionQuestions final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ui::ConnectionQuestions)

public:
    /** "Switch the console to ...?": true to switch. */
    static bool askToSwitch(QWidget *parent, const QString &title, const QString &text);
    /** The question's text once `target`'s servers passed their test: the round trips, what the
        console leaves (`session`, "the sandbox" with its data when `leavingSandbox`), and
        whether `target` is read-only. */
    static QString switchText(const ConnectionCheck &result, const Config &target, const QString &session, bool leavingSandbox);
    /** An SSH server known_hosts does not hold yet: true to trust `fingerprint` and record it. */
    static bool askToTrustHostKey(QWidget *parent, const QString &server, const QString &fingerprint);
};

} // namespace lantern::ui
