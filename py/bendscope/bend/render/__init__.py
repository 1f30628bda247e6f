"""What is drawn: the scene (the reference geometry), the draw lists, the plan the page keeps
between frames, text layout, the theme, the legend and SVG export."""
