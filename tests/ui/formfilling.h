#pragma once

#include <QString>

class QWidget;

namespace lantern::test {

/** Replaces the text of `form`'s line edit named `field` as an operator would: select all,
    Backspace, type (so validators and textEdited/textChanged see each key). Fails the test
    when there is no such field. */
void typeInto(QWidget *form, const char *field, const QString &text);

} // namespace lantern::test
