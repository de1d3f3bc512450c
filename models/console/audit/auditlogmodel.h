#pragma once

#include "console/audit/auditentry.h"

#include <QAbstractTableModel>
#include <QCoreApplication>
#include <QTimeZone>

namespace lantern {

/** One page of audit_log rows, newest first: time (in the business time zone), actor, action,
    target, and the detail JSON made readable ("reason: outage · via: console"); the tool tip of
    a detail cell holds every field on its own line. */
class AuditLogModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditLogModel)

public:
    enum Column { Time, Actor, Action, Target, Detail, ColumnCount };
    enum Role {
        IdRole = Qt::UserRole + 1,  // qint64 audit_log.id
        AtMsRole,                   // qint64 milliseconds since the epoch
    };

    explicit AuditLogModel(QObject *parent = nullptr);

    /** Shows `page` instead of what was shown. */
    void setPage(const AuditPage &page);
    void clear();
    const AuditPage &page() const { return m_page; }
    const AuditEntry &entryAt(int row) const { return m_page.entries.at(row); }
    /** The row of audit id `id`, or -1. */
    int rowOf(qint64 id) const;

    void setTimeZone(const QTimeZone &zone);
    /** "yyyy-MM-dd HH:mm:ss" in the model's time zone. */
    QString timeText(qint64 atMs) const;

    /** An action's name in words ("Make-up granted"); an unknown one as it is stored. */
    static QString actionText(const QString &action);
    /** The detail JSON as "label: value" pairs, in key order; `separator` between pairs.
        Text that is not a JSON object is returned as it is. */
    static QString readableDetail(const QString &json, const QString &separator = QStringLiteral(" · "));
    /** The detail as (label, value) pairs, for a panel that lists them: labels translated,
        `*_cents` as money ("¥5,000.00"), counts with group separators, true/false as yes/no. */
    static QList<std::pair<QString, QString>> detailFields(const QString &json);
    /** What a detail key is called on screen ("refunded_cents" -> "Refunded"). */
    static QString fieldLabel(const QString &key);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    AuditPage m_page;
    QTimeZone m_zone = QTimeZone::systemTimeZone();
};

} // namespace lantern
