#pragma once

#include "console/connections/connectionprofile.h"
#include "console/connections/connectiontester.h"
#include "console/common/dedicatedthread.h"
#include "common/consoleview.h"

#include <functional>
#include <memory>
#include <optional>

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QListView;
class QProgressBar;
class QPushButton;
class QVBoxLayout;

namespace lantern {
class ConnectionProfileModel;
class ProfileSecrets;
}

namespace lantern::ui {

class ConnectionProfileForm;
class ConnectionProfileList;
class MessageBanner;

/** The Connections view: connection profiles (name, Redis URL, SQL URL, key prefix, time zone,
    read-only) saved as the files `--profile NAME` reads, without passwords; the passwords go to
    the system keychain, or stay in memory for the session where there is none. "Test connection"
    measures a Redis PING and an SQL SELECT 1 off the GUI thread (ConnectionTester) and shows the
    round trips or what failed, in plain words. "Use this profile" emits profileActivated(): the
    session reconnects every view (a view cannot do that itself) — but only after the profile's
    servers answered a test and the operator confirmed what stops (the sandbox and its data, or
    the servers in use): a profile whose Redis is down never replaces a working session. */
class ConnectionsView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionsView)

public:
    /** Asks before the session switches profiles; true to switch. Replaceable for tests. */
    using SwitchConfirmation = std::function<bool(QWidget *parent, const QString &title, const QString &text)>;

    /** `profileDirectory`: where profiles live (default ProfileStore::defaultDirectory());
        `keychainService`: the keychain's service name. */
    explicit ConnectionsView(QWidget *parent = nullptr, const QString &profileDirectory = {},
                             const QString &keychainService = QStringLiteral("lantern"));
    ~ConnectionsView() override;

    QString viewName() const override { return QStringLiteral("connections"); }
    QString title() const override { return tr("Connections"); }
    /** Starts the tester's thread; `config` is the session in use (its profile, if any, is
        marked) and the base of every profile applied (today, rules, salts). */
    void attachBackend(const Config &config) override;
    /** Measures the round trips of the connection in use (emits latencyMeasured). */
    void refresh() override;
    void prepareScreenshot(const ScreenshotRequest &request) override;

    /** The session now runs on `config` (after a profileActivated, once reconnected). */
    void showActive(const Config &config);
    /** Whether the session runs on the embedded sandbox, which a switch stops. */
    void setSandboxSession(bool sandbox);
    /** Whether `config` reaches this console's own sandbox (its private Redis or its SQLite
        file): a switch there would stop the very servers it switches to. */
    bool pointsAtSandbox(const Config &config) const;
    /** Asks, then emits sandboxRequested(): back to a fresh sandbox from a profile's servers. */
    bool returnToSandbox();
    void setSwitchConfirmation(SwitchConfirmation confirmation) { m_confirmSwitch = std::move(confirmation); }
    /** Asks whether to trust an SSH server's host key (server, fingerprint); true to trust it. */
    using HostKeyConfirmation = std::function<bool(QWidget *parent, const QString &server, const QString &fingerprint)>;
    void setHostKeyConfirmation(HostKeyConfirmation confirmation) { m_confirmHostKey = std::move(confirmation); }
    /** Reads the profiles from disk again. */
    void reloadProfiles();
    /** Shows profile `name` in the form (fetching its passwords); false if there is none. */
    bool selectProfile(const QString &name);
    /** Empties the form for a new profile, pre-filled from the connection in use. */
    void newProfile();
    /** Saves the form as a profile (passwords to the keychain, or memory); false on invalid input. */
    bool saveProfile();
    /** Deletes profile `name` and its passwords, without asking. */
    void deleteProfile(const QString &name);
    /** Tests the servers of the form. */
    void testConnection();
    /** Switches the session to the form's profile: tests its servers first (off the GUI thread),
        then asks the operator, then emits profileActivated. False on invalid input (nothing is
        tested); a failed test or a "no" emits switchDeclined instead. */
    bool useProfile();
    bool isSwitching() const { return m_switchWaiting != 0; }

    /** The form's profile with its passwords (URLs without them). */
    ConnectionProfile formProfile() const;
    ProfileSecret formSecret() const;
    QString activeProfileName() const;
    bool isTesting() const { return m_testWaiting != 0; }

    ConnectionProfileModel *model() const { return m_model; }
    ProfileSecrets *secrets() const { return m_secrets; }
    MessageBanner *banner() const { return m_banner; }
    QLabel *resultLabel() const { return m_result; }
    ConnectionProfileForm *form() const { return m_form; }
    QLabel *keychainLabel() const;
    QLineEdit *nameField() const;
    QLineEdit *redisUrlField() const;
    QLineEdit *redisPasswordField() const;
    QLineEdit *dbUrlField() const;
    QLineEdit *dbPasswordField() const;
    QCheckBox *readOnlyBox() const;
    QPushButton *testButton() const { return m_testButton; }
    QPushButton *sandboxButton() const { return m_sandboxButton; }

Q_SIGNALS:
    /** A request for the tester; connected queued by attachBackend(). */
    void checkRequested(quint64 serial, const lantern::Config &config);
    /** "Use this profile": reconnect the session to `config` (passwords included, in memory).
        Connected by the session; the view shows it as in use at once. */
    void profileActivated(const lantern::Config &config);
    /** The operator chose to leave the servers in use for a fresh sandbox, and confirmed. */
    void sandboxRequested();
    /** Round trips of the connection in use, in ms, measured by a probe sent at `sentAt`;
        negative for a server that failed, with what follows "Redis" in the status bar then
        ("down", "is loading"; empty when it answered). */
    void latencyMeasured(double redisMs, double sqlMs, const QString &redisStatus, const QDateTime &sentAt);
    /** "Use this profile" did not switch: the profile's servers failed the test or the
        operator said no. The message is in the banner. */
    void switchDeclined(const QString &message);
    /** A test of the form finished; its result is on screen. */
    void tested(const lantern::ConnectionCheck &result);
    /** The form's passwords were fetched (from the keychain or memory). */
    void secretsLoaded(const QString &profile);
    /** A save finished; `inKeychain` false: the passwords are kept in memory only. */
    void profileSaved(const QString &profile, bool inKeychain);

private:
    void onChecked(quint64 serial, const ConnectionCheck &result);
    void onFetched(const QString &profile, const ProfileSecret &secret);
    void onSelectionChanged();
    void fillForm(const ConnectionProfile &profile);
    void updateKeychainNote();
    void setUpActiveLabel();
    void connectProfileList();
    QHBoxLayout *buildActions();
    QVBoxLayout *buildFormColumn();
    void connectSecrets();
    void updateButtons();
    void showResult(const ConnectionCheck &result);
    /** The test before a switch answered: switch, or say why not. */
    void finishSwitch(const ConnectionCheck &result);
    /** An SSH server not known yet: asks the operator; true when they trust it (test again). */
    bool trustHostKey(const ConnectionCheck &result);
    /** "the sandbox", "“production”", ...: what the session runs on now, for sentences. */
    QString sessionName() const;
    /** For a screenshot: tests once the keychain has answered, then reports. */
    void testForScreenshot();
    /** Tests `config` on the tester's thread; the answer comes to onChecked(). */
    void startTest(const Config &config);
    /** The form as a Config, or an error shown in the banner. */
    std::optional<Config> formConfig();

    std::unique_ptr<DedicatedThread<ConnectionTester>> m_thread;
    ConnectionTester *m_tester = nullptr;
    QString m_directory;
    Config m_base;
    Config m_active;
    bool m_attached = false;
    ConnectionProfileModel *m_model;
    ProfileSecrets *m_secrets;
    QString m_fetching;     // the profile whose passwords are being fetched
    quint64 m_serial = 0;
    quint64 m_testWaiting = 0;
    quint64 m_latencyWaiting = 0;
    QDateTime m_latencySentAt;
    quint64 m_switchWaiting = 0;
    std::optional<Config> m_switchTarget;  // the configuration tested before a switch
    bool m_sandboxSession = false;
    SwitchConfirmation m_confirmSwitch;
    HostKeyConfirmation m_confirmHostKey;
    QString m_acceptedFingerprint;  // the SSH host key the operator trusted, for the next test
    bool m_lastSaveInMemory = false;

    MessageBanner *m_banner;
    QLabel *m_activeLabel;
    ConnectionProfileList *m_profiles;
    QListView *m_list;  // the profiles' list and buttons, kept by m_profiles
    QPushButton *m_newButton;
    QPushButton *m_deleteButton;
    ConnectionProfileForm *m_form;
    QPushButton *m_testButton;
    QPushButton *m_saveButton;
    QPushButton *m_useButton;
    QPushButton *m_sandboxButton;
    QProgressBar *m_busy;
    QLabel *m_result;
};

} // namespace lantern::ui
