import Render
typealias TemplateSet = Render.TemplateSet
