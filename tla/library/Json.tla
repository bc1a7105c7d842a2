------------------------------- MODULE Json -------------------------------
(* roomspec's version of the CommunityModules module Json. ToJson and its *)
(* kin are computed by roomspec, as TLC computes them in Java. Reading and *)
(* writing files (JsonSerialize, JsonDeserialize, ...) is not something a  *)
(* model checker's evaluation does here: evaluating them is an error.      *)
LOCAL INSTANCE TLC

ToJson(value) == CHOOSE s \in STRING : TRUE
ToJsonArray(value) == CHOOSE s \in STRING : TRUE
ToJsonObject(value) == CHOOSE s \in STRING : TRUE
JsonSerialize(absoluteFilename, value) == TRUE
JsonDeserialize(absoluteFilename) == CHOOSE val : TRUE
ndJsonSerialize(absoluteFilename, value) == TRUE
ndJsonDeserialize(absoluteFilename) == CHOOSE val : TRUE
==========================================================================
