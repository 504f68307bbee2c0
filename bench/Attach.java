import com.sun.tools.attach.VirtualMachine;

/**
 * Loads a native agent into a running JVM with its options passed verbatim (jcmd's
 * JVMTI.agent_load splits them at '='). bench/profile.sh starts and stops async-profiler this
 * way, so that it profiles a warm service only. Run with the JDK's source launcher:
 * java bench/Attach.java PID AGENT_PATH OPTIONS
 */
public final class Attach {

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java bench/Attach.java PID AGENT_PATH OPTIONS");
      System.exit(2);
    }
    VirtualMachine vm = VirtualMachine.attach(args[0]);
    try {
      vm.loadAgentPath(args[1], args[2]);
    } finally {
      vm.detach();
    }
  }
}
