package io.tollgate.bootstrap;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/** One run of the {@code tollgate} command line in a test: its exit status and what it printed. */
record CommandLineRun(int exit, String out, String err) {

  /** Runs {@code args} with the settings {@code env}, in this process. */
  static CommandLineRun of(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), env);
    return new CommandLineRun(exit, out.toString(), err.toString());
  }
}
