#include "console/campaigns/campaignpreviewer.h"

#include "core/errors.h"

namespace lantern {

CampaignPreviewer::CampaignPreviewer(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<lantern::SplitSpec>();
    qRegisterMetaType<lantern::SplitPreview>();
}

void CampaignPreviewer::preview(quint64 serial, const SplitSpec &spec)
{
    try {
        Q_EMIT previewReady(serial, computeSplitPreview(spec));
    } catch (const std::bad_alloc &) {
        Q_EMIT previewFailed(serial, tr("Not enough memory to preview this many envelopes."));
    } catch (const std::exception &error) {
        Q_EMIT previewFailed(serial, QString::fromStdString(error.what()));
    }
}

} // namespace lantern
