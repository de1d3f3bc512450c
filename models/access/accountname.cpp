#include "access/accountname.h"

#include "core/errors.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QRegularExpression>

namespace lantern::access {

QString AccountName::validated(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[a-z][a-z0-9_]{0,31}$"));
    if (!pattern.match(name).hasMatch())
        throw InvalidInputError(tr("invalid account name '%1': a lowercase letter, then up to %2 of a-z 0-9 _")
                                        .arg(name)
                                        .arg(MaxLength - 1));
    return name;
}

QByteArray AccountName::validatedPassword(const QByteArray &password)
{
    const bool printable = std::all_of(password.cbegin(), password.cend(), [](char c) {
        return c >= 0x21 && c <= 0x7e && c != '\'' && c != '"' && c != '\\' && c != '`';
    });
    if (password.size() < 12 || password.size() > 128 || !printable)
        throw InvalidInputError(tr("unusable password: 12 to 128 printable ASCII characters, no spaces, quotes, backslashes or backticks"));
    return password;
}

QByteArray AccountName::generatedPassword()
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    QByteArray password;
    for (int i = 0; i < 24; ++i)
        password += alphabet[QRandomGenerator::system()->bounded(62)];
    return password;
}

QByteArray AccountName::nativePasswordHash(const QByteArray &password)
{
    const QByteArray once = QCryptographicHash::hash(password, QCryptographicHash::Sha1);
    return '*' + QCryptographicHash::hash(once, QCryptographicHash::Sha1).toHex().toUpper();
}

QByteArray AccountName::redisPasswordRule(const QByteArray &password)
{
    return '#' + QCryptographicHash::hash(password, QCryptographicHash::Sha256).toHex();
}

} // namespace lantern::access
