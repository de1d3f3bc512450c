// lantern: the operations console (DESIGN §2). Everything lives in ui/ and models/; this only
// hands over. `lantern --help` lists the options; docs/console.md explains the sandbox.
// --help, --version and --help-man only print text: they run before the console's QApplication,
// which needs a display (or QT_QPA_PLATFORM), exists.
#include "consolemanual.h"
#include "shell/consolesession.h"

int main(int argc, char *argv[])
{
    if (lantern::ConsoleManual::asksForText(argc, argv))
        return lantern::ConsoleManual::print(argc, argv);
    return lantern::ui::runConsole(argc, argv);
}
