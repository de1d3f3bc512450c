#include "redis/tlspeer.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <QCoreApplication>

#include <memory>

#include <arpa/inet.h>

namespace lantern {

namespace {

struct BioDeleter {
    void operator()(BIO *bio) const { BIO_free(bio); }
};
struct GeneralNamesDeleter {
    void operator()(GENERAL_NAMES *names) const { GENERAL_NAMES_free(names); }
};

QString nameText(const X509_NAME *name)
{
    if (!name)
        return {};
    const std::unique_ptr<BIO, BioDeleter> bio(BIO_new(BIO_s_mem()));
    X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253);
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return QString::fromUtf8(data, qsizetype(size));
}

QString dateText(const QDateTime &when)
{
    return when.isValid() ? when.toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")) : TlsPeer::tr("an unreadable date");
}

QDateTime timeOf(const ASN1_TIME *time)
{
    tm parts{};
    if (!time || ASN1_TIME_to_tm(time, &parts) != 1)
        return {};
    return QDateTime(QDate(parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday), QTime(parts.tm_hour, parts.tm_min, parts.tm_sec),
                     Qt::UTC);
}

} // namespace

QString TlsPeer::subject(const X509 *certificate)
{
    return nameText(X509_get_subject_name(certificate));
}

QStringList TlsPeer::names(const X509 *certificate)
{
    QStringList names;
    const std::unique_ptr<GENERAL_NAMES, GeneralNamesDeleter> alternatives(
            static_cast<GENERAL_NAMES *>(X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr)));
    for (int i = 0; alternatives && i < sk_GENERAL_NAME_num(alternatives.get()); ++i) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(alternatives.get(), i);
        if (name->type == GEN_DNS) {
            const ASN1_IA5STRING *dns = name->d.dNSName;
            names << QString::fromLatin1(reinterpret_cast<const char *>(ASN1_STRING_get0_data(dns)), ASN1_STRING_length(dns));
        } else if (name->type == GEN_IPADD) {
            const ASN1_OCTET_STRING *ip = name->d.iPAddress;
            const int length = ASN1_STRING_length(ip);
            char text[INET6_ADDRSTRLEN] = {};
            if ((length == 4 || length == 16) && ::inet_ntop(length == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(ip), text, sizeof text))
                names << QString::fromLatin1(text);
        }
    }
    if (names.isEmpty()) {
        const X509_NAME *subject = X509_get_subject_name(certificate);
        const int index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
        if (index >= 0) {
            const ASN1_STRING *cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index));
            names << QString::fromUtf8(reinterpret_cast<const char *>(ASN1_STRING_get0_data(cn)), ASN1_STRING_length(cn));
        }
    }
    return names;
}

QDateTime TlsPeer::expiry(const X509 *certificate)
{
    return timeOf(X509_get0_notAfter(certificate));
}

QString TlsPeer::summary(const QString &protocol, const X509 *certificate, RedisTlsOptions::Verify verify)
{
    if (!certificate)
        return protocol;
    return tr("%1, certificate %2, valid until %3, verify %4")
            .arg(protocol, subject(certificate), dateText(expiry(certificate)), RedisTlsOptions::verifyName(verify));
}

QString TlsPeer::explainUntrusted(long verifyResult, const X509 *certificate, const RedisTlsOptions &options)
{
    const QString name = subject(certificate);
    switch (verifyResult) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
        if (X509_cmp_current_time(X509_get0_notAfter(certificate)) < 0)
            return tr("presented a certificate that expired on %1 (%2)").arg(dateText(expiry(certificate)), name);
        return tr("presented a certificate whose issuer's certificate has expired (%1)").arg(name);
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return tr("presented a certificate that is not valid before %1 (%2); check the clocks")
                .arg(dateText(timeOf(X509_get0_notBefore(certificate))), name);
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_UNTRUSTED:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE: {
        const QString issuer = nameText(X509_get_issuer_name(certificate));
        if (options.caFile.isEmpty())
            return tr("presented an untrusted certificate (%1, issued by %2): no CA of this system signed it; "
                      "give the server's CA with --redis-ca FILE")
                    .arg(name, issuer);
        return tr("presented an untrusted certificate (%1, issued by %2): the CA in %3 did not sign it")
                .arg(name, issuer, options.caFile);
    }
    default:
        return tr("presented a certificate that cannot be trusted (%1): %2")
                .arg(name, QString::fromLatin1(X509_verify_cert_error_string(verifyResult)));
    }
}

QString TlsPeer::explainNameMismatch(const X509 *certificate, const QString &expected)
{
    return tr("presented a certificate for %1, but was reached as %2: connect by one of the certificate's names, "
              "name it with --redis-sni, or check the chain only with --redis-verify ca")
            .arg(names(certificate).join(QStringLiteral(", ")), expected);
}

} // namespace lantern
