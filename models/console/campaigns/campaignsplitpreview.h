#pragma once

#include "envelope/envelopesplitter.h"

#include <QAbstractTableModel>
#include <QList>
#include <QMetaType>

namespace lantern {

/** One bar of a split's histogram: envelopes whose amount is in [fromCents, toCents]. */
struct SplitBucket {
    qint64 fromCents = 0;
    qint64 toCents = 0;
    qint64 envelopes = 0;
};

/** What the create dialog shows before anything is written: the exact split of `spec` (the
    same amounts launch will write), reduced to a histogram and a few figures. */
struct SplitPreview {
    SplitSpec spec;
    qint64 minCents = 0;
    qint64 maxCents = 0;
    qint64 meanCents = 0;     // rounded
    qint64 medianCents = 0;
    qint64 atMinimum = 0;     // envelopes holding exactly the minimum
    QList<SplitBucket> buckets;
    QList<qint64> firstAmounts;  // the first envelopes in pool order (grab order)
    qint64 elapsedMs = 0;
};

/** Splits `spec` with splitEnvelopes (validating it first: throws InvalidInputError) and sums it
    up into at most `maxBuckets` equal-width buckets. O(count) memory and time, count up to
    MaxEnvelopeCount: call it off the GUI thread for large counts. */
SplitPreview computeSplitPreview(const SplitSpec &spec, int maxBuckets = 16, int firstCount = 10);

/** The histogram of a SplitPreview as a table: one row per bucket. */
class SplitPreviewModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SplitPreviewModel)

public:
    enum Column { From, To, Envelopes, ColumnCount };
    /** Cents (qint64) under this role for From/To, the count for Envelopes. */
    static constexpr int ValueRole = Qt::UserRole + 1;

    explicit SplitPreviewModel(QObject *parent = nullptr);

    void setPreview(const SplitPreview &preview);
    void clear();
    bool hasPreview() const { return m_has; }
    const SplitPreview &preview() const { return m_preview; }
    /** The largest bucket's count (for a chart's axis). */
    qint64 tallest() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    SplitPreview m_preview;
    bool m_has = false;
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::SplitSpec)
Q_DECLARE_METATYPE(lantern::SplitPreview)
