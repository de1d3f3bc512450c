#pragma once

namespace lantern::cli {

class CommandContext;

int runCheckin(CommandContext &context);
int runMakeup(CommandContext &context);
int runCalendar(CommandContext &context);
int runReconcile(CommandContext &context);
int runMigrateRedis(CommandContext &context);
int runStats(CommandContext &context);

} // namespace lantern::cli
