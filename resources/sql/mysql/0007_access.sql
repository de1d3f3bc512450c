-- Who may do what (issue 25, docs/security.md). The audit row's account and a campaign's creator
-- and approver are stamped by these triggers from USER(), the name the client authenticated
-- with: no client can write another (CURRENT_USER() would be the trigger's definer). `actor`
-- stays the display name a client gives. A campaign above the four-eyes bound in
-- access_policy (written by `lanternd access install`; no row, no bound) goes live only after
-- another account than its creator approved it, whoever sends the UPDATE. Each trigger is
-- dropped and made again, so a rerun after a crash does no harm; one ADD per ALTER TABLE, which
-- the migrator skips when the column exists.
ALTER TABLE audit_log ADD COLUMN account VARCHAR(128) NOT NULL DEFAULT '';
ALTER TABLE campaign ADD COLUMN created_by VARCHAR(128) NOT NULL DEFAULT '';
ALTER TABLE campaign ADD COLUMN needs_approval INT NOT NULL DEFAULT 0;
ALTER TABLE campaign ADD COLUMN approved_by VARCHAR(128) NULL;
ALTER TABLE campaign ADD COLUMN approved_at_ms BIGINT NULL;
CREATE TABLE IF NOT EXISTS access_policy (
    name VARCHAR(32) NOT NULL,
    value BIGINT NOT NULL,
    PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
DROP TRIGGER IF EXISTS trg_audit_account;
CREATE TRIGGER trg_audit_account BEFORE INSERT ON audit_log FOR EACH ROW SET NEW.account = SUBSTRING_INDEX(USER(), '@', 1);
DROP TRIGGER IF EXISTS trg_campaign_created;
CREATE TRIGGER trg_campaign_created BEFORE INSERT ON campaign FOR EACH ROW SET NEW.created_by = SUBSTRING_INDEX(USER(), '@', 1), NEW.needs_approval = (NEW.total_cents > COALESCE((SELECT value FROM access_policy WHERE name = 'approval_cents'), 9223372036854775807)), NEW.approved_by = NULL, NEW.approved_at_ms = NULL;
DROP TRIGGER IF EXISTS trg_campaign_approval;
CREATE TRIGGER trg_campaign_approval BEFORE UPDATE ON campaign FOR EACH ROW BEGIN SET NEW.created_by = OLD.created_by, NEW.needs_approval = OLD.needs_approval; IF NOT (NEW.approved_by <=> OLD.approved_by) THEN IF OLD.approved_by IS NOT NULL OR NEW.approved_by IS NULL THEN SET NEW.approved_by = OLD.approved_by, NEW.approved_at_ms = OLD.approved_at_ms; ELSEIF SUBSTRING_INDEX(USER(), '@', 1) = OLD.created_by THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'same_account'; ELSE SET NEW.approved_by = SUBSTRING_INDEX(USER(), '@', 1); END IF; END IF; IF OLD.status = 'draft' AND NEW.status <> 'draft' AND NEW.needs_approval = 1 AND NEW.approved_by IS NULL THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'needs_approval'; END IF; END;
-- The ledger decides money: a grab of a campaign SQL does not hold as launched (set live or
-- filled in Redis by hand, without the SQL launch) is refused with a reason of its own. The
-- CHECK is replaced (DROP CONSTRAINT: MySQL 8.0.19 and MariaDB; each guarded by the migrator).
ALTER TABLE grab_refused DROP CONSTRAINT chk_grab_refused_reason;
ALTER TABLE grab_refused ADD CONSTRAINT chk_grab_refused_why CHECK (reason IN ('user_holds', 'taken', 'not_launched'));
