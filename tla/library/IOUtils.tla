------------------------------ MODULE IOUtils ------------------------------
(* roomspec's version of the CommunityModules module IOUtils, for what    *)
(* model checking needs: IOEnv (the environment of the checker's process, *)
(* a record of strings), atoi, zeroPadN, and Deserialize of a text file   *)
(* (format "TXT"), which roomspec computes in Go as TLC does in Java.     *)
(* Running commands (IOExec and its kin) and writing files (Serialize,    *)
(* IOSerialize) are errors here: a model check by roomspec has no effect  *)
(* outside it. IODeserialize reads TLC's own binary format, which         *)
(* roomspec does not read.                                                *)
LOCAL INSTANCE TLC
LOCAL INSTANCE Integers
LOCAL INSTANCE Sequences
LOCAL INSTANCE SequencesExt

IOSerialize(val, absoluteFilename, compress) == TRUE
IODeserialize(absoluteFilename, compressed) == CHOOSE val : TRUE
Serialize(value, dest, options) ==
  CHOOSE r \in [exitValue : Int, stdout : STRING, stderr : STRING] : TRUE
Deserialize(src, options) == CHOOSE val : TRUE
IOExec(command) ==
  CHOOSE r \in [exitValue : Int, stdout : STRING, stderr : STRING] : TRUE
IOEnvExec(env, command) ==
  CHOOSE r \in [exitValue : Int, stdout : STRING, stderr : STRING] : TRUE
IOExecTemplate(commandTemplate, parameters) ==
  CHOOSE r \in [exitValue : Int, stdout : STRING, stderr : STRING] : TRUE
IOEnvExecTemplate(env, commandTemplate, parameters) ==
  CHOOSE r \in [exitValue : Int, stdout : STRING, stderr : STRING] : TRUE
IOEnv == CHOOSE r \in [STRING -> STRING] : TRUE
atoi(str) == CHOOSE i \in Int : ToString(i) = str
\* n in decimal, with zeros in front up to width characters.
zeroPadN(n, width) ==
  LET s == ToString(n)
      zeros == [i \in 1..(width - Len(s)) |-> "0"]
  IN FoldLeft(LAMBDA acc, z : acc \o z, "", zeros) \o s
==========================================================================
