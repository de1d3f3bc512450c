#pragma once

namespace lantern::cli {

class CommandContext;

int runAccessInstall(CommandContext &context);
int runOperatorAdd(CommandContext &context);
int runOperatorList(CommandContext &context);
int runOperatorRemove(CommandContext &context);
int runOperatorRotate(CommandContext &context);
int runOperatorSetRole(CommandContext &context);
int runCampaignApprove(CommandContext &context);

} // namespace lantern::cli
