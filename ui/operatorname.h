#pragma once

#include <QString>

namespace lantern::ui {

// The operator name the console writes into audit rows: one setting (console/operator) for
// every view, so a person types it once.

/** The name last used, else $USER (empty when neither is known). */
QString savedOperatorName();
/** Remembers `name` for the next action, in any view. */
void saveOperatorName(const QString &name);

} // namespace lantern::ui
