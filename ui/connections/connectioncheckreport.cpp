#include "connections/connectioncheckreport.h"

#include "console/connections/connectiontester.h"
#include "common/consoletheme.h"

#include <QLocale>

namespace lantern::ui {

namespace {

enum class Tone { Good, Warning, Bad };

QString resultRow(Tone tone, const QString &server, const QString &text, const QString &detail)
{
    const QString color = tone == Tone::Good ? ConsoleTheme::goodText() : tone == Tone::Warning ? ConsoleTheme::warningText() : ConsoleTheme::errorText();
    const QString mark = tone == Tone::Good ? QStringLiteral("✓") : tone == Tone::Warning ? QStringLiteral("⚠") : QStringLiteral("✗");
    QString html = QStringLiteral("<tr><td style='padding-right:6px; color:%1; font-weight:bold'>%2</td>"
                                  "<td style='padding-right:10px'><b>%3</b></td><td>%4")
                           .arg(color, mark, server.toHtmlEscaped(), text.toHtmlEscaped());
    if (!detail.isEmpty())
        html += QStringLiteral("<br><span style='color: palette(placeholder-text); font-size: small'>%1</span>").arg(detail.toHtmlEscaped());
    return html + QStringLiteral("</td></tr>");
}

QString resultRow(bool ok, const QString &server, const QString &text, const QString &detail)
{
    return resultRow(ok ? Tone::Good : Tone::Bad, server, text, detail);
}

} // namespace

QString ConnectionCheckReport::milliseconds(double ms)
{
    //: A round trip time in milliseconds, e.g. "0.42 ms".
    return tr("%1 ms").arg(QLocale().toString(ms, 'f', ms < 10 ? 2 : 1));
}

QString ConnectionCheckReport::clusterRows(const ConnectionCheck &result)
{
    qsizetype masters = 0;
    for (const ClusterNodeStatus &node : result.clusterNodes)
        masters += node.master ? 1 : 0;
    //: How many nodes a Redis Cluster has, e.g. "6 nodes" (followed by "3 masters").
    const QString nodes = tr("%n node(s)", nullptr, int(result.clusterNodes.size()));
    //: How many of a Redis Cluster's nodes are masters, e.g. "3 masters".
    const QString masterCount = tr("%n master(s)", nullptr, int(masters));
    const bool healthy = result.clusterState.isEmpty() || result.clusterState == QLatin1String("ok");  // empty: not readable
    QString summary = nodes + QStringLiteral(", ") + masterCount;
    if (!healthy && result.clusterSlotsOk >= 0)
        //: The Redis Cluster's own state when it is not "ok", e.g. "cluster_state: fail, 10923 of 16384 slots served".
        summary += QStringLiteral(" · ") + tr("cluster_state: %1, %2 of 16384 slots served").arg(result.clusterState).arg(result.clusterSlotsOk);
    QString html = resultRow(healthy, tr("Redis Cluster"), summary, {});
    for (const ClusterNodeStatus &node : result.clusterNodes) {
        QString role = node.master ? tr("master, slots %1").arg(node.slots.isEmpty() ? tr("none") : node.slots)
                                   : node.masterOf.isEmpty() ? tr("replica") : tr("replica of %1").arg(node.masterOf);
        if (node.flaggedFailing)
            role += QStringLiteral(" · ") + tr("the cluster marks it failing");
        const bool reachable = node.latencyMs.has_value();
        const QString answer = reachable ? tr("PING answered in %1").arg(milliseconds(*node.latencyMs)) : tr("not reachable");
        html += resultRow(reachable && !node.flaggedFailing, node.endpoint.text(), role + QStringLiteral(" · ") + answer,
                          reachable ? QString() : node.error);
    }
    return html;
}

QString ConnectionCheckReport::redisRows(const ConnectionCheck &result)
{
    using Hop = ConnectionCheck::Hop;
    const bool failedAt = !result.redisOk && result.redisFailure.message.size() > 0;
    QString html;
    if (!result.sentinelMaster.isEmpty())
        html += resultRow(true, tr("Sentinel"), tr("master %1").arg(result.sentinelMaster), {});
    else if (failedAt && result.redisFailedHop == Hop::Sentinel)
        return resultRow(false, tr("Sentinel"), result.redisFailure.message, result.redisFailure.detail);
    if (failedAt && result.redisFailedHop == Hop::Tls)
        return html + resultRow(false, tr("TLS"), result.redisFailure.message, result.redisFailure.detail);
    if (!result.redisTls.isEmpty())
        html += resultRow(result.redisTlsWarning.isEmpty() ? Tone::Good : Tone::Warning, tr("TLS"), result.redisTls, result.redisTlsWarning);
    if (!result.redisOk)
        return html + resultRow(false, tr("Redis"), result.redisFailure.message, result.redisFailure.detail);
    QString text = tr("PING answered in %1").arg(milliseconds(result.redisMs));
    if (!result.redisRole.isEmpty())
        //: The role Redis answers with, as INFO names it: "master" or "slave".
        text += QStringLiteral(" · ") + tr("role %1").arg(result.redisRole);
    if (!result.redisVersion.isEmpty())
        text += QStringLiteral(" · ") + tr("Redis %1").arg(result.redisVersion);
    return html + resultRow(true, tr("Redis"), text, result.redisNode.isEmpty() ? QString() : tr("at %1").arg(result.redisNode));
}

QString ConnectionCheckReport::html(const ConnectionCheck &result)
{
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    if (result.sshUsed)
        html += result.sshOk ? resultRow(true, tr("SSH"), result.sshSummary, {}) : resultRow(false, tr("SSH"), result.sshFailure.message, result.sshFailure.detail);
    html += redisRows(result);
    if (result.redisCluster)
        html += clusterRows(result);
    if (result.sqlOk) {
        QString text = tr("SELECT 1 answered in %1").arg(milliseconds(result.sqlMs));
        if (!result.sqlVersion.isEmpty())
            text += QStringLiteral(" · ") + result.sqlVersion;
        text += QStringLiteral(" · ")
                + (result.schemaVersion >= 0 ? tr("schema version %1").arg(result.schemaVersion) : tr("no Lantern tables yet"));
        if (!result.sqlTls.isEmpty())
            html += resultRow(true, tr("SQL TLS"), result.sqlTls, tr("The chain was checked against the CA, not the host name (Qt 6.4's MySQL driver)."));
        html += resultRow(true, tr("SQL"), text, {});
    } else {
        html += resultRow(false, tr("SQL"), result.sqlFailure.message, result.sqlFailure.detail);
    }
    html += QStringLiteral("</table>");
    if (result.readOnly)
        html += QStringLiteral("<p>%1</p>").arg(tr("Tested read-only: nothing was written.").toHtmlEscaped());
    return html;
}

} // namespace lantern::ui
