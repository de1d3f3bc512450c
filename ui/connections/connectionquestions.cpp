#include "connections/connectionquestions.h"

#include "connections/connectioncheckreport.h"
#include "console/connections/connectiontester.h"
#include "settings/config.h"

#include <QMessageBox>
#include <QPushButton>

namespace lantern::ui {

namespace {

/** Shows `box` with `accept` and Cancel, Cancel the default for Return and Escape; true when
    `accept` was clicked. */
bool acceptedWithSafeDefault(QMessageBox &box, const QString &accept)
{
    QPushButton *go = box.addButton(accept, QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.setEscapeButton(cancel);
    box.exec();
    return box.clickedButton() == go;
}

} // namespace

bool ConnectionQuestions::askToSwitch(QWidget *parent, const QString &title, const QString &text)
{
    // Return keeps the session: switching throws away what runs now.
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::NoButton, parent);
    return acceptedWithSafeDefault(box, tr("Switch"));
}

bool ConnectionQuestions::askToTrustHostKey(QWidget *parent, const QString &server, const QString &fingerprint)
{
    QMessageBox box(QMessageBox::Warning, tr("Trust this SSH server?"),
                    tr("The SSH server %1 is not in your known_hosts file yet.\n\nIts host key's fingerprint is\n%2\n\nCompare it with the "
                       "fingerprint its administrator gives you (ssh-keygen -lf on the server's host key). Only if they are the same, "
                       "trust it: the key is written to ~/.ssh/known_hosts, and a different key later is refused.")
                            .arg(server, fingerprint),
                    QMessageBox::NoButton, parent);
    return acceptedWithSafeDefault(box, tr("Trust and connect"));
}

QString ConnectionQuestions::switchText(const ConnectionCheck &result, const Config &target, const QString &session, bool leavingSandbox)
{
    const QString name = target.profile;
    QString text = tr("Redis answered in %1 and SQL in %2. Every view reconnects to “%3”; what they show now is read again.")
                           .arg(ConnectionCheckReport::milliseconds(result.redisMs), ConnectionCheckReport::milliseconds(result.sqlMs), name);
    if (leavingSandbox)
        text += QStringLiteral("\n\n") + tr("The sandbox stops: its private Redis server and its worker end, and its demo data is discarded "
                                            "(a sandbox started later begins with fresh demo data).");
    else
        text += QStringLiteral("\n\n") + tr("The console leaves %1.").arg(session);
    if (target.readOnly)
        text += QStringLiteral("\n\n") + tr("“%1” is read-only: every change will be refused.").arg(name);
    return text;
}

} // namespace lantern::ui
