#pragma once

#include "console/common/serverstatus.h"
#include "settings/config.h"
#include "shell/operatoridentity.h"

#include <QDateTime>
#include <QDate>
#include <QIcon>
#include <QString>
#include <QTimer>
#include <QVariantMap>
#include <QWidget>

namespace lantern::ui {

/** What `lantern --screenshot` asks a view to show. */
struct ScreenshotRequest {
    QString user;          // --uid (a uid or public token); empty: the view's default
    QDate month;           // --month
    QDate day;             // --day
    qint64 campaignId = 0; // --campaign; 0: the view's default
};

/** One page of the console (Users, Campaigns, Queues, Recovery, Audit log, Connections).
    A view never touches Redis or SQL itself: attachBackend() gives it the configuration, and it
    runs its own service object on a thread of its own (DedicatedThread), talking to it through
    queued signals only. */
class ConsoleView : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleView)

public:
    explicit ConsoleView(QWidget *parent = nullptr) : QWidget(parent) { setOperatorIdentity(new OperatorIdentity(this)); }
    ~ConsoleView() override = default;

    /** Stable name, as --view takes it: "users", "campaigns", ... */
    virtual QString viewName() const = 0;
    /** Translated title for the navigation and the window title. */
    virtual QString title() const = 0;

    /** The servers are there: start the view's service thread against `config`. Called once. */
    virtual void attachBackend(const Config &config) = 0;
    /** Reloads what is shown (auto-refresh tick, F5); never blocks; ignored while a load of
        the same data is out. */
    virtual void refresh() {}
    /** Whether the view shows data worth refreshing automatically (e.g. not while a dialog of
        its own is open). */
    virtual bool wantsAutoRefresh() const { return true; }

    /** What the operator is looking at (a user and month, a selection, filters, an order), so a
        new window (a language or theme switch) opens where this one was. */
    virtual QVariantMap viewState() const { return {}; }
    /** Called after attachBackend() with what viewState() gave: loads and selects it again. */
    virtual void restoreViewState(const QVariantMap &state) { Q_UNUSED(state) }

    /** Loads what a screenshot of this view shows, then emits screenshotReady (data on screen)
        or screenshotFailed (its message on screen). */
    virtual void prepareScreenshot(const ScreenshotRequest &request) = 0;

    /** Whether the connection refuses writes (Config::readOnly): the view's write actions are
        disabled, with the reason in their tooltips (WriteAction). */
    void setReadOnly(bool readOnly)
    {
        m_readOnly = readOnly;
        readOnlyChanged();
    }
    bool isReadOnly() const { return m_readOnly; }

    /** The session's operator (the window's, shared by every view; a view of its own has one
        of its own). */
    void setOperatorIdentity(OperatorIdentity *identity)
    {
        if (m_operator)
            disconnect(m_operator, nullptr, this, nullptr);
        m_operator = identity;
        connect(identity, &OperatorIdentity::changed, this, [this] { operatorChanged(); });
        operatorChanged();
    }
    OperatorIdentity *operatorIdentity() const { return m_operator; }
    /** The identity of the view `widget` is part of (a panel's, a dialog's parent's). */
    static OperatorIdentity *operatorOf(const QWidget *widget)
    {
        for (const QWidget *w = widget; w; w = w->parentWidget()) {
            if (const auto *view = qobject_cast<const ConsoleView *>(w))
                return view->operatorIdentity();
        }
        return nullptr;
    }

    /** Whether the view reads in the background now: hidden, after it was on screen once. */
    bool isSamplingInBackground() const { return m_backgroundSampling && m_backgroundSampling->isActive(); }

Q_SIGNALS:
    void screenshotReady();
    void screenshotFailed(const QString &message);
    /** The view read fresh data from `servers` at `at`: the status bar marks them up at once and
        shows the time as "Last refresh". */
    void dataRead(lantern::ServerStatus::Servers servers, const QDateTime &at);
    /** A request failed; its message is on screen (the window then probes the servers). */
    void failed(const QString &message);
    /** Asks the window to show another view (viewName(), e.g. "recovery"): a link followed. */
    void openView(const QString &name);

protected:
    /** `timer` (its interval set) reads while the view is hidden, so a chart keeps the time it
        was away — but only once the view was on screen: a view the operator never opened reads
        nothing in the background. Stopped while the view is shown (the window refreshes it). */
    void sampleWhileHidden(QTimer *timer) { m_backgroundSampling = timer; }
    void showEvent(QShowEvent *event) override
    {
        m_shownOnce = true;
        if (m_backgroundSampling)
            m_backgroundSampling->stop();
        QWidget::showEvent(event);
    }
    void hideEvent(QHideEvent *event) override
    {
        if (m_backgroundSampling && m_shownOnce)
            m_backgroundSampling->start();
        QWidget::hideEvent(event);
    }
    /** Re-applies the enabled state of the view's actions after setReadOnly(). */
    virtual void readOnlyChanged() {}
    /** The session's operator was set or changed. */
    virtual void operatorChanged() {}

private:
    bool m_readOnly = false;
    OperatorIdentity *m_operator = nullptr;
    QTimer *m_backgroundSampling = nullptr;
    bool m_shownOnce = false;
};

} // namespace lantern::ui
