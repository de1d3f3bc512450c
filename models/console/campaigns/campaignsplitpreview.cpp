#include "console/campaigns/campaignsplitpreview.h"

#include "console/common/campaignmoney.h"

#include <QElapsedTimer>
#include <QLocale>

#include <algorithm>

namespace lantern {

SplitPreview computeSplitPreview(const SplitSpec &spec, int maxBuckets, int firstCount)
{
    QElapsedTimer timer;
    timer.start();
    std::vector<qint64> amounts = splitEnvelopes(spec);
    SplitPreview preview;
    preview.spec = spec;
    for (size_t i = 0; i < amounts.size() && i < size_t(std::max(0, firstCount)); ++i)
        preview.firstAmounts << amounts[i];
    const auto [low, high] = std::minmax_element(amounts.cbegin(), amounts.cend());
    preview.minCents = *low;
    preview.maxCents = *high;
    preview.meanCents = meanCents(spec.totalCents, spec.count);
    preview.atMinimum = std::count(amounts.cbegin(), amounts.cend(), spec.minCents);

    // Equal-width buckets over [min, max]; never wider than needed, never empty of range.
    const quint64 span = quint64(preview.maxCents - preview.minCents) + 1;
    const quint64 bucketCount = std::min<quint64>(quint64(std::max(1, maxBuckets)), span);
    const quint64 width = (span + bucketCount - 1) / bucketCount;
    const quint64 used = (span + width - 1) / width;
    for (quint64 i = 0; i < used; ++i) {
        const qint64 from = preview.minCents + qint64(i * width);
        const qint64 to = i + 1 == used ? preview.maxCents : from + qint64(width) - 1;
        preview.buckets << SplitBucket{from, to, 0};
    }
    for (const qint64 amount : amounts)
        ++preview.buckets[qsizetype(quint64(amount - preview.minCents) / width)].envelopes;

    const auto middle = amounts.begin() + qsizetype(amounts.size() / 2);
    std::nth_element(amounts.begin(), middle, amounts.end());
    preview.medianCents = *middle;
    preview.elapsedMs = timer.elapsed();
    return preview;
}

SplitPreviewModel::SplitPreviewModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void SplitPreviewModel::setPreview(const SplitPreview &preview)
{
    beginResetModel();
    m_preview = preview;
    m_has = true;
    endResetModel();
}

void SplitPreviewModel::clear()
{
    beginResetModel();
    m_preview = {};
    m_has = false;
    endResetModel();
}

qint64 SplitPreviewModel::tallest() const
{
    qint64 most = 0;
    for (const SplitBucket &bucket : m_preview.buckets)
        most = std::max(most, bucket.envelopes);
    return most;
}

int SplitPreviewModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_preview.buckets.size());
}

int SplitPreviewModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SplitPreviewModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SplitBucket &bucket = m_preview.buckets.at(index.row());
    if (role == ValueRole) {
        switch (index.column()) {
        case From:
            return bucket.fromCents;
        case To:
            return bucket.toCents;
        case Envelopes:
            return bucket.envelopes;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case From:
            return formatYuan(bucket.fromCents);
        case To:
            return formatYuan(bucket.toCents);
        case Envelopes:
            return QLocale().toString(bucket.envelopes);
        }
    }
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant SplitPreviewModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case From:
        return tr("From");
    case To:
        return tr("To");
    case Envelopes:
        return tr("Envelopes");
    }
    return {};
}

} // namespace lantern
