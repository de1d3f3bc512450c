#include "formfilling.h"

#include <QLineEdit>
#include <QTest>

namespace lantern::test {

void typeInto(QWidget *form, const char *field, const QString &text)
{
    auto *edit = form->findChild<QLineEdit *>(QLatin1String(field));
    QVERIFY2(edit, field);
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

} // namespace lantern::test
