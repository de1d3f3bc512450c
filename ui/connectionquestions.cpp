#include "connectionquestions.h"

#include <QMessageBox>
#include <QPushButton>

namespace lantern::ui {

bool ConnectionQuestions::askToSwitch(QWidget *parent, const QString &title, const QString &text)
{
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::NoButton, parent);
    QPushButton *go = box.addButton(tr("Switch"), QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    // Return keeps the session: switching throws away what runs now.
    box.setDefaultButton(cancel);
    box.setEscapeButton(cancel);
    box.exec();
    return box.clickedButton() == go;
}

bool ConnectionQuestions::askToTrustHostKey(QWidget *parent, const QString &server, const QString &fingerprint)
{
    QMessageBox box(QMessageBox::Warning, tr("Trust this SSH server?"),
                    tr("The SSH server %1 is not in your known_hosts file yet.\n\nIts host key's fingerprint is\n%2\n\nCompare it with the "
                       "fingerprint its administrator gives you (ssh-keygen -lf on the server's host key). Only if they are the same, "
                       "trust it: the key is written to ~/.ssh/known_hosts, and a different key later is refused.")
                            .arg(server, fingerprint),
                    QMessageBox::NoButton, parent);
    QPushButton *trust = box.addButton(tr("Trust and connect"), QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.setEscapeButton(cancel);
    box.exec();
    return box.clickedButton() == trust;
}

} // namespace lantern::ui
