-------------------------------- MODULE SVG --------------------------------
(* roomspec's version of the CommunityModules module SVG: an SVG element  *)
(* is a record [name, attrs, children, innerText]. SVGElemToString,       *)
(* NodeOfRingNetwork and PointOnLine are computed in Go as TLC computes    *)
(* them in Java (the coordinates truncated as Java's casts do).           *)
(* NodesOfDirectedMultiGraph, which TLC lays out with a graph-drawing     *)
(* library, is an error here, as is SVGSerialize, which writes a file.    *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE Integers
LOCAL INSTANCE TLC
LOCAL INSTANCE FiniteSets
LOCAL INSTANCE IOUtils

\* The fields of r1 and those of r2 that r1 lacks.
LOCAL Merge(r1, r2) ==
  LET D1 == DOMAIN r1
      D2 == DOMAIN r2
  IN [k \in (D1 \cup D2) |-> IF k \in D1 THEN r1[k] ELSE r2[k]]

SVGElem(_name, _attrs, _children, _innerText) ==
  [name |-> _name, attrs |-> _attrs, children |-> _children, innerText |-> _innerText]
Line(x1, y1, x2, y2, attrs) ==
  LET svgAttrs == [x1 |-> ToString(x1), y1 |-> ToString(y1), x2 |-> ToString(x2), y2 |-> ToString(y2)]
  IN SVGElem("line", Merge(svgAttrs, attrs), <<>>, "")
Circle(cx, cy, r, attrs) ==
  LET svgAttrs == [cx |-> ToString(cx), cy |-> ToString(cy), r |-> ToString(r)]
  IN SVGElem("circle", Merge(svgAttrs, attrs), <<>>, "")
Rect(x, y, w, h, attrs) ==
  LET svgAttrs == [x |-> ToString(x), y |-> ToString(y), width |-> ToString(w), height |-> ToString(h)]
  IN SVGElem("rect", Merge(svgAttrs, attrs), <<>>, "")
Text(x, y, text, attrs) ==
  LET svgAttrs == [x |-> ToString(x), y |-> ToString(y)]
  IN SVGElem("text", Merge(svgAttrs, attrs), <<>>, text)
Image(x, y, width, height, href, attrs) ==
  LET svgAttrs == ("xlink:href" :> href @@ "x" :> ToString(x) @@ "y" :> ToString(y) @@
                   "width" :> ToString(width) @@ "height" :> ToString(height))
  IN SVGElem("image", Merge(svgAttrs, attrs), <<>>, "")
Group(children, attrs) == SVGElem("g", attrs, children, "")
Svg(children, attrs) == SVGElem("svg", attrs, children, "")
SVGDoc(children, vbX, vbY, vbW, vbH, attrs) ==
  LET svgAttrs == ("xmlns:xlink" :> "http://www.w3.org/1999/xlink" @@
                   "xmlns" :> "http://www.w3.org/2000/svg" @@
                   "viewBox" :> ToString(vbX) \o " " \o ToString(vbY) \o " " \o
                                ToString(vbW) \o " " \o ToString(vbH))
  IN Svg(<<children>>, Merge(svgAttrs, attrs))
\* <name attr='value' ...>innerText children</name>, with _ in attribute
\* names written - and << >> in the text escaped.
SVGElemToString(elem) == TRUE
\* The n-th of m points evenly spaced on the circle of radius r about
\* (cx, cy).
NodeOfRingNetwork(cx, cy, r, n, m) == [x |-> 0, y |-> 0]
NodesOfDirectedMultiGraph(nodes, edges, options) ==
  CHOOSE f \in [nodes -> [x : Int, y : Int]] : TRUE
PointOnLine(from, to, segment) ==
  [x |-> from.x + ((to.x - from.x) \div segment), y |-> from.y + ((to.y - from.y) \div segment)]
SVGSerialize(svg, frameNamePrefix, frameNumber) ==
  Serialize(SVGElemToString(svg), frameNamePrefix \o zeroPadN(frameNumber, 3) \o ".svg",
            [format |-> "TXT", charset |-> "UTF-8", openOptions |-> <<"WRITE", "CREATE", "TRUNCATE_EXISTING">>])
==========================================================================
