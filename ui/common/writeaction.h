#pragma once

#include "access/role.h"

#include <QCoreApplication>

class QAbstractButton;

namespace lantern::ui {

class OperatorIdentity;

/** The buttons that change something (make-up, campaign actions, dead-letter retry and discard,
    recovery): on a read-only connection they stay disabled and say why in their tooltip, instead
    of failing after the operator has filled a dialog in. */
class WriteAction final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ui::WriteAction)

public:
    /** Enables `button` when `enabled` and the connection may write. While read-only its own
        tooltip is kept aside and the reason shown instead; likewise `whyNot` while it is
        disabled for another reason (nothing visibly selected). The own one comes back after. */
    static void setEnabled(QAbstractButton *button, bool enabled, bool readOnly, const QString &whyNot = {});
    /** The same, and disabled with the refusal as its tooltip when the session's account may not
        do `action` (OperatorIdentity::refusal), whatever else holds. */
    static void setAllowed(QAbstractButton *button, bool enabled, bool readOnly, const QString &whyNot, const OperatorIdentity *identity,
                           access::Action action);
    /** The tooltip a write action has on a read-only connection. */
    static QString readOnlyReason();
};

} // namespace lantern::ui
