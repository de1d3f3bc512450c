#pragma once

#include "console/campaigns/campaignsplitpreview.h"

#include <QObject>

namespace lantern {

/** Computes split previews on a thread of its own (DedicatedThread): a split of up to
    MaxEnvelopeCount envelopes takes a moment and memory the GUI thread must not spend. Answers
    carry the request's serial; the caller keeps at most one request out (see
    CampaignCreateDialog), so previews never queue up behind each other. */
class CampaignPreviewer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignPreviewer)

public:
    explicit CampaignPreviewer(QObject *parent = nullptr);
    ~CampaignPreviewer() override = default;

public Q_SLOTS:
    void preview(quint64 serial, const lantern::SplitSpec &spec);

Q_SIGNALS:
    void previewReady(quint64 serial, const lantern::SplitPreview &preview);
    void previewFailed(quint64 serial, const QString &message);
};

} // namespace lantern
