#include "common/writeaction.h"

#include "shell/operatoridentity.h"

#include <QAbstractButton>
#include <QVariant>

namespace lantern::ui {

namespace {

/** Where a button's own tooltip waits while the read-only reason is shown. */
constexpr const char *OwnToolTip = "lanternOwnToolTip";

} // namespace

void WriteAction::setEnabled(QAbstractButton *button, bool enabled, bool readOnly, const QString &whyNot)
{
    button->setEnabled(enabled && !readOnly);
    const QString reason = readOnly ? readOnlyReason() : (enabled ? QString() : whyNot);
    const QVariant own = button->property(OwnToolTip);
    if (!reason.isEmpty()) {
        if (!own.isValid())
            button->setProperty(OwnToolTip, button->toolTip());
        button->setToolTip(reason);
    } else if (own.isValid()) {
        button->setToolTip(own.toString());
        button->setProperty(OwnToolTip, QVariant());
    }
}

void WriteAction::setAllowed(QAbstractButton *button, bool enabled, bool readOnly, const QString &whyNot, const OperatorIdentity *identity,
                             access::Action action)
{
    const QString refused = identity ? identity->refusal(action) : QString();
    setEnabled(button, enabled && refused.isEmpty(), readOnly, refused.isEmpty() ? whyNot : refused);
}

QString WriteAction::readOnlyReason()
{
    return tr("Read-only connection: this would change data, and every change is refused. "
              "Connect with a profile that may write to use it.");
}

} // namespace lantern::ui
