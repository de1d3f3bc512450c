#pragma once

#include <QCoreApplication>

class QAbstractButton;

namespace lantern::ui {

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
    /** The tooltip a write action has on a read-only connection. */
    static QString readOnlyReason();
};

} // namespace lantern::ui
