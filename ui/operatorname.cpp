#include "operatorname.h"

#include <QProcessEnvironment>
#include <QSettings>

namespace lantern::ui {

namespace {
const QString OperatorSetting = QStringLiteral("console/operator");
} // namespace

QString savedOperatorName()
{
    const QString saved = QSettings().value(OperatorSetting).toString();
    if (!saved.isEmpty())
        return saved;
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER"));
}

void saveOperatorName(const QString &name)
{
    QSettings().setValue(OperatorSetting, name);
}

} // namespace lantern::ui
