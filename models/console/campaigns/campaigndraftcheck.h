#pragma once

#include "envelope/campaignservice.h"

#include <QCoreApplication>
#include <QMap>
#include <QString>

#include <optional>

namespace lantern {

/** What an operator typed into the create dialog, as text. */
struct CampaignDraftInput {
    QString name;
    QString total;    // yuan, e.g. "888.88"
    QString count;
    QString minimum;  // yuan per envelope, e.g. "0.01"
    SplitAlgorithm algorithm = SplitAlgorithm::DoubleMean;
    QString seed;
    int maxAttempts = 9;
};

/** Validates the create dialog as the operator types (DESIGN §4: count >= 1,
    total >= count × min, no int64 overflow, a seed), with one plain, translated message per
    field, and the draft CampaignService::create would accept when there is none. */
class CampaignDraftCheck final {
    Q_DECLARE_TR_FUNCTIONS(CampaignDraftCheck)

public:
    enum class Field { Name, Total, Count, Minimum, Seed, MaxAttempts };

    explicit CampaignDraftCheck(const CampaignDraftInput &input);

    bool isValid() const { return m_errors.isEmpty(); }
    /** Set only when valid. */
    const std::optional<CampaignDraft> &draft() const { return m_draft; }
    /** The spec to preview: set as soon as total, count, minimum and seed are valid (the name
        need not be). */
    const std::optional<SplitSpec> &splitSpec() const { return m_spec; }
    QString error(Field field) const { return m_errors.value(field); }
    const QMap<Field, QString> &errors() const { return m_errors; }

private:
    QMap<Field, QString> m_errors;
    std::optional<CampaignDraft> m_draft;
    std::optional<SplitSpec> m_spec;
};

} // namespace lantern
