#include "console/campaigns/campaigndraftcheck.h"

#include "console/common/campaignmoney.h"
#include "core/errors.h"

#include <QLocale>

#include <algorithm>
#include <limits>

namespace lantern {

namespace {
constexpr qsizetype MaxNameLength = 128;
constexpr quint64 MaxSeed = quint64(std::numeric_limits<qint64>::max());  // as `lanternd campaign create --seed`

std::optional<qint64> parseCount(const QString &text)
{
    bool ok = false;
    const qint64 value = text.trimmed().toLongLong(&ok);
    return ok ? std::optional<qint64>(value) : std::nullopt;
}
} // namespace

CampaignDraftCheck::CampaignDraftCheck(const CampaignDraftInput &input)
{
    const QString name = input.name.trimmed();
    const bool unprintable = std::any_of(name.cbegin(), name.cend(), [](QChar c) {
        return c.category() == QChar::Other_Control || c == QChar::ReplacementCharacter;
    });
    if (name.isEmpty())
        m_errors.insert(Field::Name, tr("Give the campaign a name."));
    else if (name.size() > MaxNameLength)
        m_errors.insert(Field::Name, tr("The name is too long: at most %n characters.", nullptr, int(MaxNameLength)));
    else if (unprintable || !name.isValidUtf16())
        m_errors.insert(Field::Name, tr("The name must not contain control characters."));

    const std::optional<qint64> total = parseYuan(input.total);
    if (input.total.trimmed().isEmpty())
        m_errors.insert(Field::Total, tr("Enter the total amount in yuan."));
    else if (!total)
        m_errors.insert(Field::Total, tr("Not an amount: use yuan with at most two decimals, e.g. 888.88 (and nothing beyond ¥92,233,720,368,547,758.07)."));
    else if (*total < 1)
        m_errors.insert(Field::Total, tr("The total must be at least ¥0.01."));

    const std::optional<qint64> count = parseCount(input.count);
    if (input.count.trimmed().isEmpty())
        m_errors.insert(Field::Count, tr("Enter how many envelopes to split the total into."));
    else if (!count)
        m_errors.insert(Field::Count, tr("Not a whole number."));
    else if (*count < 1)
        m_errors.insert(Field::Count, tr("There must be at least one envelope."));
    else if (*count > MaxEnvelopeCount)
        m_errors.insert(Field::Count, tr("At most %1 envelopes per campaign.").arg(QLocale().toString(MaxEnvelopeCount)));

    const std::optional<qint64> minimum = parseYuan(input.minimum);
    if (!minimum)
        m_errors.insert(Field::Minimum, tr("Not an amount: use yuan with at most two decimals, e.g. 0.01."));
    else if (*minimum < 1)
        m_errors.insert(Field::Minimum, tr("Every envelope must hold at least ¥0.01."));

    // total >= count × minimum, the product computed without overflow.
    if (!m_errors.contains(Field::Total) && !m_errors.contains(Field::Count) && !m_errors.contains(Field::Minimum)) {
        qint64 floor = 0;
        if (qMulOverflow(*count, *minimum, &floor))
            m_errors.insert(Field::Minimum, tr("%1 envelopes of at least %2 is more money than can be counted: lower the count or the minimum.")
                                                    .arg(QLocale().toString(*count), formatYuan(*minimum)));
        else if (*total < floor)
            m_errors.insert(Field::Total, tr("Too little for %1 envelopes of at least %2: the total must be at least %3.")
                                                  .arg(QLocale().toString(*count), formatYuan(*minimum), formatYuan(floor)));
    }

    bool seedOk = false;
    const QString seedText = input.seed.trimmed();
    const quint64 seed = seedText.toULongLong(&seedOk);
    if (seedText.isEmpty())
        m_errors.insert(Field::Seed, tr("Enter a seed (a whole number), or press Random."));
    else if (!seedOk || seed > MaxSeed || !std::all_of(seedText.cbegin(), seedText.cend(), [](QChar c) { return c.isDigit(); }))
        m_errors.insert(Field::Seed, tr("The seed is a whole number from 0 to %1.").arg(MaxSeed));

    if (input.maxAttempts < 1 || input.maxAttempts > 1000)
        m_errors.insert(Field::MaxAttempts, tr("From 1 to 1000 grab attempts per user."));

    const bool splitFieldsOk = !m_errors.contains(Field::Total) && !m_errors.contains(Field::Count) && !m_errors.contains(Field::Minimum)
            && !m_errors.contains(Field::Seed);
    if (splitFieldsOk)
        m_spec = SplitSpec{*total, *count, *minimum, input.algorithm, seed};
    if (!m_errors.isEmpty())
        return;

    CampaignDraft draft;
    draft.name = name;
    draft.totalCents = *total;
    draft.count = *count;
    draft.minCents = *minimum;
    draft.algorithm = input.algorithm;
    draft.seed = seed;
    draft.maxAttempts = input.maxAttempts;
    try {
        CampaignService::validate(draft);  // the service's own rules have the last word
        m_draft = draft;
    } catch (const InvalidInputError &error) {
        m_errors.insert(Field::Name, error.message());
    }
}

} // namespace lantern
