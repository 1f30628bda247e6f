"""κ in the editor: the topology cache (computed in slices), Connect-to and removal previews, the
loops, the fewest edges that break every loop, and what the panels, the inspector and the
outline say."""
